package deployments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agent-trading/ats/models/metrics"
)

// The operator surface's ports (docs: /work/shared/design/operator-surface.md,
// README "Configuration"): the agent API, the operator listeners of the API
// and the worker, the Temporal frontend and its Web UI.
const (
	portAPI        = "8080"
	portOps        = "9090"
	portWorkerOps  = "9091"
	portTemporal   = "7233"
	portTemporalUI = "8233"
)

// pinned: an exact version tag (digits in it, not latest) or a digest.
var pinnedImage = regexp.MustCompile(`^[a-z0-9./_-]+(:[A-Za-z0-9._-]*[0-9][A-Za-z0-9._-]*)?(@sha256:[0-9a-f]{64})?$`)

func imageProblem(where, image string) string {
	switch {
	case image == "":
		return where + ": no image"
	case strings.HasSuffix(image, ":latest") || !strings.ContainsAny(image, ":@"):
		return where + ": image " + image + " is not pinned (want an exact version tag or a digest)"
	case !pinnedImage.MatchString(image):
		return where + ": image " + image + " is not pinned to an exact version"
	}
	return ""
}

// secretName: settings that hold a secret. Names ending in _FILE name a
// file (a mounted secret) instead.
var secretName = regexp.MustCompile(`(?i)(PASSWORD|PASSWD|_PWD$|SECRET|TOKEN|MASTER_KEY|API_KEY|DATABASE_URL|PRIVATE_KEY)`)

func isSecretSetting(name string) bool {
	return secretName.MatchString(name) && !strings.HasSuffix(name, "_FILE")
}

// literalCredential: a URL with a password in it.
var literalCredential = regexp.MustCompile(`://[^/\s:@]+:[^/\s@]+@`)

// ---- compose ----

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Secrets  map[string]struct {
		File string `yaml:"file"`
	} `yaml:"secrets"`
}

type composeService struct {
	Image       string            `yaml:"image"`
	Entrypoint  []string          `yaml:"entrypoint"`
	Environment map[string]string `yaml:"environment"`
	Secrets     []string          `yaml:"secrets"`
	Ports       []string          `yaml:"ports"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Volumes []string `yaml:"volumes"`
}

func parseCompose(raw []byte) (composeFile, error) {
	var f composeFile
	err := yaml.Unmarshal(raw, &f)
	return f, err
}

// composeProblems checks pinned images, secrets only from secret files, and
// that every secret a service names exists.
func composeProblems(f composeFile) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, name := range sortedKeys(f.Services) {
		s := f.Services[name]
		add(imageProblem("compose "+name, s.Image))
		for k, v := range s.Environment {
			if isSecretSetting(k) && v != "" {
				add(fmt.Sprintf("compose %s: %s is a literal secret; read it from a secret file", name, k))
			}
			if literalCredential.MatchString(v) {
				add(fmt.Sprintf("compose %s: %s holds credentials", name, k))
			}
			if strings.HasSuffix(k, "_FILE") {
				sec, ok := strings.CutPrefix(v, "/run/secrets/")
				if !ok || !slices.Contains(s.Secrets, sec) {
					add(fmt.Sprintf("compose %s: %s=%s is not one of its secrets", name, k, v))
				}
			}
		}
		for _, sec := range s.Secrets {
			if d, ok := f.Secrets[sec]; !ok || d.File == "" {
				add(fmt.Sprintf("compose %s: secret %s is not defined from a file", name, sec))
			}
		}
	}
	return out
}

func TestCompose(t *testing.T) {
	raw, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseCompose(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range composeProblems(f) {
		t.Error(p)
	}
	for _, want := range []string{"postgres", "temporal-frontend", "temporal-ui", "redis", "migrate", "api", "worker", "prometheus", "grafana"} {
		if _, ok := f.Services[want]; !ok {
			t.Errorf("compose: no %s service", want)
		}
	}
	api, worker, ui := f.Services["api"], f.Services["worker"], f.Services["temporal-ui"]
	for _, c := range []struct {
		what, got, port string
	}{
		{"api ATS_HTTP_ADDR", api.Environment["ATS_HTTP_ADDR"], portAPI},
		{"api ATS_OPS_ADDR", api.Environment["ATS_OPS_ADDR"], portOps},
		{"worker ATS_OPS_ADDR", worker.Environment["ATS_OPS_ADDR"], portWorkerOps},
		{"api ATS_TEMPORAL_ADDRESS", api.Environment["ATS_TEMPORAL_ADDRESS"], portTemporal},
		{"worker ATS_TEMPORAL_ADDRESS", worker.Environment["ATS_TEMPORAL_ADDRESS"], portTemporal},
	} {
		if !strings.HasSuffix(c.got, ":"+c.port) {
			t.Errorf("compose %s = %q, want port %s", c.what, c.got, c.port)
		}
	}
	published := func(s composeService, host, container string) bool {
		return slices.ContainsFunc(s.Ports, func(p string) bool { return strings.HasSuffix(p, ":"+host+":"+container) || p == host+":"+container })
	}
	if !published(api, portAPI, portAPI) || !published(api, portOps, portOps) || !published(worker, portWorkerOps, portWorkerOps) {
		t.Errorf("compose: api publishes %v, worker %v", api.Ports, worker.Ports)
	}
	if !published(ui, portTemporalUI, "8080") {
		t.Errorf("compose: the Web UI publishes %v, want %s", ui.Ports, portTemporalUI)
	}
	// The Web UI decodes through the API's operator listener, with the
	// token from the secret, and that listener lets the UI's origin in.
	if ep := strings.Join(ui.Entrypoint, " "); !strings.Contains(ep, "TEMPORAL_CODEC_ENDPOINT=") ||
		!strings.Contains(ep, "localhost:"+portOps+"/codec/$$(cat /run/secrets/ops_token)") || !slices.Contains(ui.Secrets, "ops_token") {
		t.Errorf("compose: the Web UI's codec endpoint is not the operator listener's /codec with the token: %q", ep)
	}
	if o := api.Environment["ATS_TEMPORAL_UI_ORIGIN"]; o != "http://localhost:"+portTemporalUI {
		t.Errorf("compose: ATS_TEMPORAL_UI_ORIGIN = %q", o)
	}
	for _, name := range []string{"postgres", "redis"} {
		if f.Services[name].Healthcheck == nil {
			t.Errorf("compose %s: no healthcheck (the ats services wait for it)", name)
		}
	}
	// Prometheus scrapes both operator listeners.
	prom, err := os.ReadFile("prometheus/prometheus.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"api:" + portOps, "worker:" + portWorkerOps} {
		if !bytes.Contains(prom, []byte(`"`+target+`"`)) {
			t.Errorf("prometheus.yml does not scrape %s", target)
		}
	}
	if !slices.Contains(f.Services["grafana"].Volumes, "../grafana/dashboards:/var/lib/grafana/dashboards:ro") {
		t.Errorf("compose: grafana does not mount the dashboards: %v", f.Services["grafana"].Volumes)
	}
}

// ---- kubernetes ----

type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name        string            `yaml:"name"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		// Deployment and Job
		Template podTemplate `yaml:"template"`
		// Service
		Ports []struct {
			Port int `yaml:"port"`
		} `yaml:"ports"`
		// NetworkPolicy
		Ingress []struct {
			Ports []struct {
				Port int `yaml:"port"`
			} `yaml:"ports"`
		} `yaml:"ingress"`
	} `yaml:"spec"`
}

type podTemplate struct {
	Metadata struct {
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec struct {
		Containers []container `yaml:"containers"`
		Volumes    []struct {
			Name   string `yaml:"name"`
			Secret *struct {
				SecretName string `yaml:"secretName"`
			} `yaml:"secret"`
		} `yaml:"volumes"`
	} `yaml:"spec"`
}

type container struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	Ports []struct {
		ContainerPort int    `yaml:"containerPort"`
		Name          string `yaml:"name"`
	} `yaml:"ports"`
	Env []struct {
		Name      string  `yaml:"name"`
		Value     *string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	ReadinessProbe map[string]any `yaml:"readinessProbe"`
	LivenessProbe  map[string]any `yaml:"livenessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
}

func parseK8s(raw []byte) ([]k8sObject, error) {
	var out []k8sObject
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	for {
		var o k8sObject
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if o.Kind != "" {
			out = append(out, o)
		}
	}
}

// k8sProblems checks pinned images, resources, probes on long-running
// containers, and secrets only from Secret objects.
func k8sProblems(objs []k8sObject) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, o := range objs {
		where := o.Kind + " " + o.Metadata.Name
		if o.Kind == "ConfigMap" {
			for k, v := range o.Data {
				// Paths of mounted secrets are fine; the secrets are not.
				if isSecretSetting(k) && !strings.HasPrefix(v, "/") || literalCredential.MatchString(v) {
					add(fmt.Sprintf("%s: %s is a secret in a ConfigMap", where, k))
				}
			}
		}
		for _, c := range o.Spec.Template.Spec.Containers {
			cw := where + " container " + c.Name
			add(imageProblem(cw, c.Image))
			if len(c.Resources.Requests) == 0 || c.Resources.Limits["memory"] == "" {
				add(cw + ": no resource requests or memory limit")
			}
			if o.Kind == "Deployment" && (c.ReadinessProbe == nil || c.LivenessProbe == nil) {
				add(cw + ": no readiness or liveness probe")
			}
			for _, e := range c.Env {
				switch {
				case isSecretSetting(e.Name) && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil):
					add(fmt.Sprintf("%s: %s does not come from a Secret", cw, e.Name))
				case e.Value != nil && literalCredential.MatchString(*e.Value):
					add(fmt.Sprintf("%s: %s holds credentials", cw, e.Name))
				}
			}
		}
	}
	return out
}

func TestKubernetes(t *testing.T) {
	var objs []k8sObject
	for _, f := range []string{"kubernetes/ats.yaml", "kubernetes/networkpolicy.yaml", "kubernetes/temporal.yaml"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := parseK8s(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		objs = append(objs, o...)
	}
	for _, p := range k8sProblems(objs) {
		t.Error(p)
	}
	find := func(kind, name string) k8sObject {
		for _, o := range objs {
			if o.Kind == kind && o.Metadata.Name == name {
				return o
			}
		}
		t.Fatalf("no %s %s", kind, name)
		return k8sObject{}
	}
	cm := find("ConfigMap", "ats")
	for k, port := range map[string]string{"ATS_HTTP_ADDR": portAPI, "ATS_OPS_ADDR": portOps, "ATS_TEMPORAL_ADDRESS": portTemporal} {
		if !strings.HasSuffix(cm.Data[k], ":"+port) {
			t.Errorf("ConfigMap %s = %q, want port %s", k, cm.Data[k], port)
		}
	}
	containerPorts := func(d k8sObject) map[string]int {
		out := map[string]int{}
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				out[p.Name] = p.ContainerPort
			}
		}
		return out
	}
	api, worker := find("Deployment", "ats-api"), find("Deployment", "ats-worker")
	if p := containerPorts(api); fmt.Sprint(p["http"]) != portAPI || fmt.Sprint(p["ops"]) != portOps {
		t.Errorf("ats-api ports %v", p)
	}
	if p := containerPorts(worker); fmt.Sprint(p["ops"]) != portWorkerOps {
		t.Errorf("ats-worker ports %v", p)
	}
	for _, d := range []k8sObject{api, worker} {
		// Prometheus scrapes the operator port, never the agent-facing one.
		if a := d.Spec.Template.Metadata.Annotations; a["prometheus.io/port"] != fmt.Sprint(containerPorts(d)["ops"]) || a["prometheus.io/path"] != "/metrics" {
			t.Errorf("%s: scrape annotations %v", d.Metadata.Name, a)
		}
		env := map[string]string{}
		tls := false
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					env[e.Name] = e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
				}
			}
		}
		for _, v := range d.Spec.Template.Spec.Volumes {
			tls = tls || v.Secret != nil && v.Secret.SecretName == "ats-temporal-tls"
		}
		if env["ATS_MASTER_KEY"] != "ats/master-key" || env["ATS_DATABASE_URL"] != "ats/database-url" || !tls {
			t.Errorf("%s: master key %q, database %q, Temporal mTLS from a Secret %v", d.Metadata.Name, env["ATS_MASTER_KEY"], env["ATS_DATABASE_URL"], tls)
		}
	}
	if s := find("Service", "ats-api-ops"); len(s.Spec.Ports) != 1 || fmt.Sprint(s.Spec.Ports[0].Port) != portOps {
		t.Errorf("ats-api-ops ports %v", s.Spec.Ports)
	}
	guarded := map[string]bool{}
	for _, o := range objs {
		if o.Kind == "NetworkPolicy" {
			for _, in := range o.Spec.Ingress {
				for _, p := range in.Ports {
					guarded[fmt.Sprint(p.Port)] = true
				}
			}
		}
	}
	for _, p := range []string{portAPI, portOps, portWorkerOps, portTemporal} {
		if !guarded[p] {
			t.Errorf("no NetworkPolicy admits port %s (the namespace denies by default)", p)
		}
	}
}

// TestManifestChecksCatchMistakes feeds the checks broken manifests: each
// mistake must be reported.
func TestManifestChecksCatchMistakes(t *testing.T) {
	compose := `
services:
  a: { image: "ats:latest", environment: { ATS_MASTER_KEY: "c2VjcmV0", ATS_TOKEN_FILE: /run/secrets/missing } }
  b: { image: postgres, environment: { URL: "postgres://u:hunter2@db/x" }, secrets: [undefined] }
`
	f, err := parseCompose([]byte(compose))
	if err != nil {
		t.Fatal(err)
	}
	k8s := `
kind: ConfigMap
metadata: { name: c }
data: { ATS_OPS_TOKEN: "abc" }
---
kind: Deployment
metadata: { name: d }
spec:
  template:
    spec:
      containers:
        - name: x
          image: "ats:1.0@sha256:0000"
          env: [{ name: ATS_MASTER_KEY, value: "c2VjcmV0" }]
`
	objs, err := parseK8s([]byte(k8s))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(append(composeProblems(f), k8sProblems(objs)...), "\n")
	for _, want := range []string{
		"compose a: image ats:latest is not pinned",
		"compose a: ATS_MASTER_KEY is a literal secret",
		"compose a: ATS_TOKEN_FILE=/run/secrets/missing is not one of its secrets",
		"compose b: image postgres is not pinned",
		"compose b: URL holds credentials",
		"compose b: secret undefined is not defined",
		"ConfigMap c: ATS_OPS_TOKEN is a secret in a ConfigMap",
		"Deployment d container x: image ats:1.0@sha256:0000 is not pinned to an exact version",
		"Deployment d container x: no resource requests",
		"Deployment d container x: no readiness or liveness probe",
		"Deployment d container x: ATS_MASTER_KEY does not come from a Secret",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("not reported: %s\n(got:\n%s)", want, got)
		}
	}
}

// ---- grafana ----

// httpMetrics are the HTTP layer's series (package api).
var httpMetrics = []string{"ats_http_requests_total", "ats_http_request_duration_seconds", "ats_http_requests_in_flight"}

var seriesName = regexp.MustCompile(`\b(ats|temporal)_[a-z0-9_]+`)

// TestDashboard: the provisioned dashboard parses, queries only series the
// service exports, and shows every one of them.
func TestDashboard(t *testing.T) {
	raw, err := os.ReadFile("grafana/dashboards/ats.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range append(metrics.Names(), httpMetrics...) {
		known[n] = true
	}
	used := map[string]bool{}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, s := range seriesName.FindAllString(tg.Expr, -1) {
				base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "_bucket"), "_sum"), "_count")
				used[base] = true
				if strings.HasPrefix(base, "ats_") && !known[base] {
					t.Errorf("panel %q queries %s, which the service does not export", p.Title, s)
				}
			}
		}
	}
	var missing []string
	for n := range known {
		if !used[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the dashboard shows none of %v", missing)
	}
	if !used["temporal_request_total"] || !used["temporal_activity_execution_latency_seconds"] {
		t.Error("the dashboard shows none of the Temporal SDK's metrics")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
