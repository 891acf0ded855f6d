// Package main validates Kubernetes manifests (the multi-document YAML `helm template` prints)
// strictly, without a cluster and without downloading schemas: every document is decoded into its
// typed Go object from client-go's scheme (plus the Prometheus Operator's monitoring/v1 types for
// ServiceMonitor) with apimachinery's strict decoder, so an unknown or misspelt field, a duplicate
// key or a value of the wrong type fails, naming the document and the field path. A few
// cross-object checks that an API server or controller would otherwise only catch at run time
// follow: names and labels are valid, selectors select the pod, named ports and volumes exist.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	sigsyaml "sigs.k8s.io/yaml"
)

// Object is one decoded document.
type Object struct {
	Kind   string
	Name   string
	Object runtime.Object
}

func (o Object) String() string { return o.Kind + "/" + o.Name }

// Problem is one failure, tied to the document it was found in.
type Problem struct {
	Where   string
	Message string
}

func (p Problem) String() string { return p.Where + ": " + p.Message }

// newDecoder returns a strict decoder over client-go's scheme and the monitoring/v1 types.
func newDecoder() (runtime.Decoder, *runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		return nil, nil, err
	}
	if err := monitoringv1.AddToScheme(s); err != nil {
		return nil, nil, err
	}
	return serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer(), s, nil
}

// SplitDocuments splits a multi-document YAML stream, dropping documents that hold only comments.
func SplitDocuments(in io.Reader) ([][]byte, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	var docs [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if hasContent(doc) {
			docs = append(docs, doc)
		}
	}
}

func hasContent(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed != "" && !strings.HasPrefix(trimmed, "#") && trimmed != "---" {
			return true
		}
	}
	return false
}

// Decode decodes every document strictly. It returns the objects that decoded and one problem per
// document that did not.
func Decode(docs [][]byte) ([]Object, []Problem, error) {
	decoder, s, err := newDecoder()
	if err != nil {
		return nil, nil, err
	}
	var objects []Object
	var problems []Problem
	for i, doc := range docs {
		where := fmt.Sprintf("document %d", i+1)
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := sigsyaml.Unmarshal(doc, &head); err != nil {
			problems = append(problems, Problem{where, "not YAML: " + err.Error()})
			continue
		}
		if head.Kind != "" {
			where = fmt.Sprintf("%s/%s (document %d)", head.Kind, head.Metadata.Name, i+1)
		}
		gvk := schema.FromAPIVersionAndKind(head.APIVersion, head.Kind)
		if head.APIVersion == "" || head.Kind == "" {
			problems = append(problems, Problem{where, "apiVersion and kind are required"})
			continue
		}
		if !s.Recognizes(gvk) {
			problems = append(problems, Problem{where, fmt.Sprintf("unknown apiVersion/kind %s %s", head.APIVersion, head.Kind)})
			continue
		}
		obj, _, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			// Strict errors list every unknown or duplicate field with its path.
			problems = append(problems, Problem{where, err.Error()})
			continue
		}
		objects = append(objects, Object{Kind: head.Kind, Name: head.Metadata.Name, Object: obj})
	}
	return objects, problems, nil
}

// Validate decodes a stream strictly and runs the cross-object checks.
func Validate(in io.Reader) ([]Object, []Problem, error) {
	docs, err := SplitDocuments(in)
	if err != nil {
		return nil, nil, err
	}
	if len(docs) == 0 {
		return nil, []Problem{{"input", "no Kubernetes documents"}}, nil
	}
	objects, problems, err := Decode(docs)
	if err != nil {
		return nil, nil, err
	}
	if len(problems) == 0 {
		problems = append(problems, CrossCheck(objects)...)
	}
	return objects, problems, nil
}

type podOwner struct {
	where    string
	selector labels.Selector
	template corev1.PodTemplateSpec
	claims   []string
}

// CrossCheck catches what strict decoding cannot: invalid names and labels, selectors that miss
// the pod, and references to ports, volumes, Services and ConfigMaps that do not exist.
func CrossCheck(objects []Object) []Problem {
	var problems []Problem
	add := func(where string, format string, args ...any) {
		problems = append(problems, Problem{where, fmt.Sprintf(format, args...)})
	}

	services := map[string]*corev1.Service{}
	configMaps := map[string]bool{}
	var owners []podOwner
	for _, o := range objects {
		meta, ok := o.Object.(metav1.Object)
		if !ok {
			add(o.String(), "has no metadata")
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(meta.GetName()) {
			add(o.String(), "metadata.name: %s", msg)
		}
		for key, value := range meta.GetLabels() {
			for _, msg := range validation.IsQualifiedName(key) {
				add(o.String(), "label key %q: %s", key, msg)
			}
			for _, msg := range validation.IsValidLabelValue(value) {
				add(o.String(), "label %s value %q: %s", key, value, msg)
			}
		}
		switch obj := o.Object.(type) {
		case *corev1.Service:
			services[obj.Name] = obj
			for _, msg := range validation.IsDNS1035Label(obj.Name) {
				add(o.String(), "a Service name must be a DNS-1035 label: %s", msg)
			}
		case *corev1.ConfigMap:
			configMaps[obj.Name] = true
		case *appsv1.StatefulSet:
			owners = append(owners, checkWorkload(o.String(), obj.Spec.Selector, obj.Spec.Template, claimNames(obj), add))
		case *appsv1.Deployment:
			owners = append(owners, checkWorkload(o.String(), obj.Spec.Selector, obj.Spec.Template, nil, add))
		}
	}

	for _, o := range objects {
		switch obj := o.Object.(type) {
		case *appsv1.StatefulSet:
			if svc, ok := services[obj.Spec.ServiceName]; !ok {
				add(o.String(), "spec.serviceName %q names no Service in the manifests", obj.Spec.ServiceName)
			} else if svc.Spec.ClusterIP != corev1.ClusterIPNone {
				add(o.String(), "spec.serviceName %q is not a headless Service (clusterIP: None)", obj.Spec.ServiceName)
			}
			for _, v := range obj.Spec.Template.Spec.Volumes {
				if v.ConfigMap != nil && !configMaps[v.ConfigMap.Name] && (v.ConfigMap.Optional == nil || !*v.ConfigMap.Optional) {
					add(o.String(), "volume %q mounts ConfigMap %q, which is not in the manifests", v.Name, v.ConfigMap.Name)
				}
			}
		case *corev1.Service:
			owner, ok := selectedBy(owners, obj.Spec.Selector)
			if !ok {
				add(o.String(), "spec.selector %v selects no pod template in the manifests", obj.Spec.Selector)
				continue
			}
			for _, port := range obj.Spec.Ports {
				if port.TargetPort.Type == intstr.String && !hasContainerPort(owner.template, port.TargetPort.StrVal) {
					add(o.String(), "port %q: targetPort %q is not a container port of %s", port.Name, port.TargetPort.StrVal, owner.where)
				}
			}
		case *policyv1.PodDisruptionBudget:
			if (obj.Spec.MinAvailable == nil) == (obj.Spec.MaxUnavailable == nil) {
				add(o.String(), "exactly one of spec.minAvailable and spec.maxUnavailable must be set")
			}
			if _, ok := selectedByLabelSelector(owners, obj.Spec.Selector); !ok {
				add(o.String(), "spec.selector selects no pod template in the manifests")
			}
		case *networkingv1.Ingress:
			for _, rule := range obj.Spec.Rules {
				if rule.HTTP == nil {
					continue
				}
				for _, path := range rule.HTTP.Paths {
					if path.Backend.Service == nil {
						continue
					}
					checkServicePort(o.String(), services, path.Backend.Service.Name, path.Backend.Service.Port.Name, path.Backend.Service.Port.Number, add)
				}
			}
		case *monitoringv1.ServiceMonitor:
			selector, err := metav1.LabelSelectorAsSelector(&obj.Spec.Selector)
			if err != nil {
				add(o.String(), "spec.selector: %v", err)
				continue
			}
			var matched []*corev1.Service
			for _, svc := range services {
				if selector.Matches(labels.Set(svc.Labels)) {
					matched = append(matched, svc)
				}
			}
			if len(matched) == 0 {
				add(o.String(), "spec.selector selects no Service in the manifests")
			}
			for i, endpoint := range obj.Spec.Endpoints {
				if endpoint.Port == "" {
					add(o.String(), "spec.endpoints[%d].port: a named Service port is required", i)
					continue
				}
				for _, svc := range matched {
					if !hasServicePort(svc, endpoint.Port, 0) {
						add(o.String(), "spec.endpoints[%d].port %q is not a port of Service %s", i, endpoint.Port, svc.Name)
					}
				}
			}
		}
	}
	return problems
}

func claimNames(sts *appsv1.StatefulSet) []string {
	var names []string
	for _, claim := range sts.Spec.VolumeClaimTemplates {
		names = append(names, claim.Name)
	}
	return names
}

func checkWorkload(where string, selector *metav1.LabelSelector, template corev1.PodTemplateSpec, claims []string, add func(string, string, ...any)) podOwner {
	owner := podOwner{where: where, template: template, claims: claims, selector: labels.Nothing()}
	if selector == nil {
		add(where, "spec.selector is required")
	} else if s, err := metav1.LabelSelectorAsSelector(selector); err != nil {
		add(where, "spec.selector: %v", err)
	} else {
		owner.selector = s
		if !s.Matches(labels.Set(template.Labels)) {
			add(where, "spec.selector does not match spec.template.metadata.labels")
		}
	}
	volumes := map[string]bool{}
	for _, v := range template.Spec.Volumes {
		if volumes[v.Name] {
			add(where, "volume %q is declared twice", v.Name)
		}
		volumes[v.Name] = true
	}
	for _, c := range claims {
		if volumes[c] {
			add(where, "volume %q is both a pod volume and a volumeClaimTemplate", c)
		}
		volumes[c] = true
	}
	if len(template.Spec.Containers) == 0 {
		add(where, "spec.template.spec.containers is empty")
	}
	for _, c := range append(append([]corev1.Container{}, template.Spec.InitContainers...), template.Spec.Containers...) {
		ports := map[string]bool{}
		for _, p := range c.Ports {
			if p.Name == "" {
				continue
			}
			for _, msg := range validation.IsValidPortName(p.Name) {
				add(where, "container %q port name %q: %s", c.Name, p.Name, msg)
			}
			if ports[p.Name] {
				add(where, "container %q declares port %q twice", c.Name, p.Name)
			}
			ports[p.Name] = true
		}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				add(where, "container %q mounts volume %q, which is not declared", c.Name, m.Name)
			}
		}
		for kind, probe := range map[string]*corev1.Probe{"startupProbe": c.StartupProbe, "livenessProbe": c.LivenessProbe, "readinessProbe": c.ReadinessProbe} {
			if probe == nil {
				continue
			}
			if probe.HTTPGet != nil && probe.HTTPGet.Port.Type == intstr.String && !ports[probe.HTTPGet.Port.StrVal] {
				add(where, "container %q %s uses port %q, which the container does not declare", c.Name, kind, probe.HTTPGet.Port.StrVal)
			}
		}
	}
	return owner
}

func selectedBy(owners []podOwner, selector map[string]string) (podOwner, bool) {
	if len(selector) == 0 {
		return podOwner{}, false
	}
	for _, owner := range owners {
		if labels.SelectorFromSet(selector).Matches(labels.Set(owner.template.Labels)) {
			return owner, true
		}
	}
	return podOwner{}, false
}

func selectedByLabelSelector(owners []podOwner, selector *metav1.LabelSelector) (podOwner, bool) {
	if selector == nil {
		return podOwner{}, false
	}
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil || s.Empty() {
		return podOwner{}, false
	}
	for _, owner := range owners {
		if s.Matches(labels.Set(owner.template.Labels)) {
			return owner, true
		}
	}
	return podOwner{}, false
}

func hasContainerPort(template corev1.PodTemplateSpec, name string) bool {
	for _, c := range template.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == name {
				return true
			}
		}
	}
	return false
}

func hasServicePort(svc *corev1.Service, name string, number int32) bool {
	for _, p := range svc.Spec.Ports {
		if (name != "" && p.Name == name) || (name == "" && p.Port == number) {
			return true
		}
	}
	return false
}

func checkServicePort(where string, services map[string]*corev1.Service, name, portName string, portNumber int32, add func(string, string, ...any)) {
	svc, ok := services[name]
	if !ok {
		add(where, "backend Service %q is not in the manifests", name)
		return
	}
	if !hasServicePort(svc, portName, portNumber) {
		add(where, "backend Service %q has no port %q/%d", name, portName, portNumber)
	}
}

// ConfigMapData returns the value of key in the named ConfigMap (any ConfigMap when name is empty).
func ConfigMapData(objects []Object, name, key string) (string, error) {
	for _, o := range objects {
		cm, ok := o.Object.(*corev1.ConfigMap)
		if !ok || (name != "" && cm.Name != name) {
			continue
		}
		if value, ok := cm.Data[key]; ok {
			return value, nil
		}
	}
	return "", fmt.Errorf("no ConfigMap holds the key %q", key)
}

// summary counts the objects by kind, for the one-line report.
func summary(objects []Object) string {
	counts := map[string]int{}
	var kinds []string
	for _, o := range objects {
		if counts[o.Kind] == 0 {
			kinds = append(kinds, o.Kind)
		}
		counts[o.Kind]++
	}
	var b bytes.Buffer
	for i, kind := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", counts[kind], kind)
	}
	return b.String()
}
