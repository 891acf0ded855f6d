// Browse: catalogs → namespaces → tables and views, and a table's schema, snapshots, partitions and files; every
// read at the URL's version. Tables come from the tree (native JSON API) and from Iceberg REST, as engines see them.
import * as api from '../api.js';
import { el, json, replace, table } from '../dom.js';
import { errorBox, href } from '../nav.js';

const PAGE = 50;

export async function renderBrowse(page, { ids, version }) {
  if (ids.length === 0) {
    const heading = el('h1', {}, 'Catalogs');
    const list = el('section', { 'aria-label': 'Catalogs', id: 'children' });
    const snapshots = el('section', { 'aria-label': 'Named snapshots', id: 'named-snapshots' });
    replace(page, heading, asOf(version), list, snapshots);
    await Promise.all([childrenList(list, ids, version, 'Catalogs of the lake'), namedSnapshots(snapshots)]);
    return;
  }
  const object = await api.object(api.pathText(ids), version);
  const value = object.value || {};
  const type = value.obj_type || (object.kind === 'leaf' ? 'leaf' : 'object');
  replace(page,
    crumbs(ids),
    el('h1', {}, ids[ids.length - 1], ' ', el('span', { className: 'pill' }, type)),
    asOf(version, object.vid),
    el('p', {}, el('a', { href: href('compare', ids, { from: String(object.vid) }, { kind: 'now' }) },
      'Compare this version with a later one')));
  if (type === 'table') {
    await tablePage(page, ids, value, version);
  } else if (type === 'view') {
    await viewPage(page, ids, value, version);
  } else if (type === 'partition') {
    page.append(el('h2', {}, 'Partition'), properties(value));
    const files = el('section', { 'aria-label': 'Files', id: 'files' }, el('h2', {}, 'Files'));
    page.append(files);
    await filesList(files, ids, version);
  } else {
    page.append(el('h2', {}, 'Properties'), properties(value));
    if (object.kind !== 'leaf') {
      const children = el('section', { 'aria-label': 'Children', id: 'children' }, el('h2', {}, 'Children'));
      page.append(children);
      await childrenList(children, ids, version, 'Children');
    }
  }
}

/** The lake's named snapshots, each a link to the lake as of it; nothing when the user may not list them. */
async function namedSnapshots(container) {
  let answer;
  try {
    answer = await api.snapshots();
  } catch (error) {
    return; // listing snapshots needs ALL on / when grants are in force: not every user's business
  }
  const named = [...(answer.snapshots || [])].sort((a, b) => b.vid - a.vid);
  if (named.length) {
    container.append(el('h2', {}, 'Named snapshots'), table('Named snapshots', ['name', 'vid'], named.map((snapshot) => [
      el('a', { href: href('browse', [], {}, { kind: 'snapshot', value: snapshot.name }) }, snapshot.name),
      String(snapshot.vid),
    ])));
  }
}

function crumbs(ids) {
  const parts = [el('a', { href: href('browse', []) }, 'lake')];
  ids.slice(0, -1).forEach((id, i) => parts.push(' / ', el('a', { href: href('browse', ids.slice(0, i + 1)) }, id)));
  return el('nav', { className: 'crumbs', 'aria-label': 'Path' }, parts, ' / ');
}

function asOf(version, vid) {
  const at = version.kind === 'now' ? 'newest version' : `${version.kind} ${version.value}`;
  return el('p', { className: 'as-of', 'data-vid': vid ?? '' }, `As of ${at}${vid !== undefined ? ` (vid ${vid})` : ''}`);
}

function properties(value) {
  const rows = Object.entries(value)
    .filter(([key]) => key !== 'properties')
    .map(([key, v]) => [key, typeof v === 'object' ? json(v, 400) : String(v)]);
  if (value.properties && typeof value.properties === 'object') {
    for (const [key, v] of Object.entries(value.properties)) {
      rows.push([`properties.${key}`, String(v)]);
    }
  }
  return rows.length ? table('Properties', ['key', 'value'], rows) : el('p', { className: 'notice' }, 'No properties.');
}

/** A list of the children of `ids`, a page at a time ("More" follows the page token at the same vid). */
async function childrenList(container, ids, version, caption, step = '*', results = 'both') {
  const q = ids.length === 0 ? `/${step}` : api.childrenQuery(ids, step);
  const rows = [];
  const body = el('div');
  const more = el('div', { className: 'row-actions' });
  container.append(body, more);
  let token = null;
  const load = async () => {
    const answer = await api.query(q, version, { results, limit: PAGE, pageToken: token });
    for (const row of answer.rows) {
      const childIds = api.pathIds(row.path);
      const value = row.value || {};
      rows.push([
        el('a', { href: href('browse', childIds) }, childIds[childIds.length - 1]),
        value.obj_type || row.kind,
        String(row.version),
        json(value.properties || summary(value), 120),
      ]);
    }
    token = answer.nextPageToken;
    replace(body, rows.length ? table(caption, ['id', 'type', 'version', 'about'], rows) : el('p', { className: 'notice' }, 'Nothing here.'));
    replace(more, token ? el('button', { type: 'button', onclick: () => load().catch((e) => more.replaceWith(errorBox(e, 'More'))) }, 'More') : null);
  };
  await load();
}

function summary(value) {
  const { obj_type: ignored, ...rest } = value;
  return rest;
}

// ---- tables and views

async function tablePage(page, ids, value, version) {
  const [catalog, ...rest] = ids;
  const name = rest[rest.length - 1];
  const namespace = rest.slice(0, -1);
  page.append(el('h2', {}, 'Properties'), properties(value));

  const seenBy = el('section', { 'aria-label': 'Seen by', id: 'seen-by' }, el('h2', {}, 'Seen by'));
  const icebergView = el('div');
  page.append(seenBy, icebergView);
  let iceberg = null;
  try {
    iceberg = await api.icebergTable(catalog, namespace, name, version);
    seenBy.append(el('p', {}, `Iceberg REST: catalog (prefix) ${catalog}, namespace ${namespace.join('.')}, table ${name}`
      + ` (format v${iceberg.metadata['format-version']}).`));
  } catch (error) {
    seenBy.append(el('p', {}, 'Iceberg REST: not loadable.'), errorBox(error, 'Iceberg REST load'));
  }
  seenBy.append(el('p', {}, namespace.length === 1
    ? `Hive Metastore: catalog ${catalog}, database ${namespace[0]}, table ${name}.`
    : 'Hive Metastore: not seen (a Hive database is one namespace level).'));

  if (iceberg) {
    icebergSections(icebergView, iceberg.metadata);
  }

  const partitions = el('section', { 'aria-label': 'Partitions', id: 'partitions' }, el('h2', {}, 'Partitions'));
  const files = el('section', { 'aria-label': 'Files', id: 'files' }, el('h2', {}, 'Files, all partitions'));
  page.append(partitions, files);
  await Promise.all([
    childrenList(partitions, ids, version, 'Partitions', "[obj_type='partition']", 'inner'),
    filesList(files, ids, version, "[obj_type='partition']/*"),
  ]);
}

function icebergSections(container, metadata) {
  const schemas = metadata.schemas || [];
  const current = schemas.find((s) => s['schema-id'] === metadata['current-schema-id']) || schemas[schemas.length - 1];
  if (current) {
    container.append(el('h2', {}, `Schema ${current['schema-id']}`),
      table('Schema', ['id', 'name', 'type', 'required'], (current.fields || []).map((f) => [
        String(f.id), f.name, typeof f.type === 'string' ? f.type : json(f.type, 200), f.required ? 'yes' : 'no'])));
  }
  if (schemas.length > 1) {
    container.append(el('h2', {}, 'Schema history'), el('ul', {}, schemas.map((s) => el('li', {},
      `schema ${s['schema-id']}: ${(s.fields || []).map((f) => f.name).join(', ')}`,
      s === current ? ' (current)' : ''))));
  }
  const spec = (metadata['partition-specs'] || []).find((s) => s['spec-id'] === metadata['default-spec-id']);
  container.append(el('h2', {}, 'Partition spec'), spec && spec.fields.length
    ? table('Partition spec', ['name', 'transform', 'source id'], spec.fields.map((f) => [f.name, f.transform, String(f['source-id'])]))
    : el('p', { className: 'notice' }, 'Unpartitioned.'));
  const snapshots = [...(metadata.snapshots || [])].sort((a, b) => b['timestamp-ms'] - a['timestamp-ms']);
  container.append(el('h2', {}, 'Snapshots'), snapshots.length
    ? el('ol', { className: 'timeline', id: 'snapshots', 'aria-label': 'Snapshots, newest first' }, snapshots.map((s) => el('li', {
      className: s['snapshot-id'] === metadata['current-snapshot-id'] ? 'current' : undefined,
    }, `${new Date(s['timestamp-ms']).toISOString()}  ${(s.summary || {}).operation || ''}  snapshot ${s['snapshot-id']}`,
    s.summary && s.summary['added-data-files'] ? `, +${s.summary['added-data-files']} files` : '',
    s.summary && s.summary['total-records'] ? `, ${s.summary['total-records']} records in all` : '',
    s['snapshot-id'] === metadata['current-snapshot-id'] ? ' (current)' : '')))
    : el('p', { className: 'notice' }, 'No snapshot yet.'));
  const refs = Object.entries(metadata.refs || {});
  if (refs.length) {
    container.append(el('h2', {}, 'Refs'), table('Refs', ['name', 'type', 'snapshot'],
      refs.map(([refName, ref]) => [refName, ref.type, String(ref['snapshot-id'])])));
  }
}

async function viewPage(page, ids, value, version) {
  const [catalog, ...rest] = ids;
  const name = rest[rest.length - 1];
  const namespace = rest.slice(0, -1);
  page.append(el('h2', {}, 'Properties'), properties(value));
  let view;
  try {
    view = await api.icebergView(catalog, namespace, name, version);
  } catch (error) {
    page.append(errorBox(error, 'Iceberg REST view load'));
    return;
  }
  const metadata = view.metadata;
  const versions = [...(metadata.versions || [])].sort((a, b) => b['version-id'] - a['version-id']);
  const sqlOf = (v) => (v.representations || []).filter((r) => r.type === 'sql');
  const current = versions.find((v) => v['version-id'] === metadata['current-version-id']);
  page.append(el('h2', {}, 'SQL'), current
    ? sqlOf(current).map((r) => el('div', {}, el('p', { className: 'notice' }, r.dialect), el('pre', {}, r.sql)))
    : el('p', { className: 'notice' }, 'No version.'));
  page.append(el('h2', {}, 'Versions'), table('View versions', ['version', 'time', 'dialects', 'SQL'],
    versions.map((v) => [
      `${v['version-id']}${v === current ? ' (current)' : ''}`,
      new Date(v['timestamp-ms']).toISOString(),
      sqlOf(v).map((r) => r.dialect).join(', '),
      sqlOf(v).map((r) => r.sql).join(' | '),
    ])));
}

/** The files at `step` below `ids` (a partition's own by default), a page at a time, with their statistics. */
async function filesList(container, ids, version, step = '*') {
  const body = el('div');
  const more = el('div', { className: 'row-actions' });
  container.append(body, more);
  const rows = [];
  let token = null;
  const load = async () => {
    const answer = await api.query(api.childrenQuery(ids, step), version, { results: 'leaves', limit: PAGE, pageToken: token });
    for (const row of answer.rows) {
      const file = row.value || {};
      const childIds = api.pathIds(row.path);
      rows.push([
        el('a', { href: href('browse', childIds), title: file.file_path || '' }, (file.file_path || childIds[childIds.length - 1]).split('/').pop()),
        file.content || '',
        file.file_format || '',
        String(file.record_count ?? ''),
        String(file.file_size_in_bytes ?? ''),
        json(file.lower || {}, 100),
        json(file.upper || {}, 100),
      ]);
    }
    token = answer.nextPageToken;
    replace(body, rows.length
      ? table('Files', ['file', 'content', 'format', 'records', 'bytes', 'lower', 'upper'], rows, { numeric: [3, 4] })
      : el('p', { className: 'notice' }, 'No files.'));
    replace(more, token ? el('button', { type: 'button', onclick: () => load().catch((e) => more.replaceWith(errorBox(e, 'More'))) }, 'More files') : null);
  };
  await load();
}
