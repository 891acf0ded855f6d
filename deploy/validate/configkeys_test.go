package main

import (
	"reflect"
	"testing"
)

const referenceConfig = `
storage:
  data-dir: ${TREECAT_DATA_DIR:-data}
  rocksdb:
    block-cache-size: ${TREECAT_ROCKSDB_BLOCK_CACHE_SIZE:-256MiB}
retention:
  keep-for: ${TREECAT_RETENTION_KEEP_FOR:-7 days}
  keep-versions: ${TREECAT_RETENTION_KEEP_VERSIONS:-}
server:
  applicationConnectors:
    - type: http
      port: ${TREECAT_HTTP_PORT:-8181}
`

func missing(t *testing.T, rendered string) []string {
	t.Helper()
	keys, err := MissingConfigKeys([]byte(referenceConfig), []byte(rendered))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestEveryKeyRenderedPasses(t *testing.T) {
	got := missing(t, `
storage: {data-dir: /d, rocksdb: {block-cache-size: 1GiB}}
retention: {keep-for: 1 day, keep-versions: 10}
server: {applicationConnectors: [{type: http, port: 1}]}
`)
	if len(got) != 0 {
		t.Fatalf("expected no missing keys, got %v", got)
	}
}

func TestMissingKeysAreNamedByPath(t *testing.T) {
	got := missing(t, `
storage: {data-dir: /d}
retention: {keep-for: 1 day}
server: {applicationConnectors: [{type: http}]}
`)
	want := []string{"server.applicationConnectors[0].port", "storage.rocksdb"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestAKeyOffByDefaultMayBeLeftOut(t *testing.T) {
	got := missing(t, `
storage: {data-dir: /d, rocksdb: {block-cache-size: 1GiB}}
retention: {keep-for: 1 day}
server: {applicationConnectors: [{type: http, port: 1}]}
`)
	if len(got) != 0 {
		t.Fatalf("keep-versions (${…:-}) may be absent, got %v", got)
	}
}

func TestAMissingSectionIsOneKey(t *testing.T) {
	got := missing(t, `
storage: {data-dir: /d, rocksdb: {block-cache-size: 1GiB}}
server: {applicationConnectors: [{type: http, port: 1}]}
`)
	if want := []string{"retention"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
