package deployments

import (
	"bytes"
	"os"
	"regexp"
	"slices"

	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agent-trading/ats/worker/clustertest"
	"github.com/agent-trading/ats/workflows"
)

// The Temporal cluster compose and Kubernetes deploy is the one the cluster
// tests run (worker/clustertest): the same server version, the same
// configuration file, the same setup steps (deployments/temporal/setup.sh)
// and the same services, each its own process, with the frontend behind
// mutual TLS.

// temporalCommand is how every Temporal server container starts: the
// configuration of deployments/temporal, mounted at /etc/temporal/ats.
var temporalCommand = regexp.MustCompile(`temporal-server --root /etc/temporal --config ats --env production --allow-no-auth start --service (\S+)`)

const (
	serverImage = "temporalio/server:" + clustertest.ServerVersion
	// The admin tools of the same server version (temporal-sql-tool and
	// the temporal CLI that setup.sh runs).
	adminToolsPrefix = "temporalio/admin-tools:" + clustertest.ServerVersion + "-"
)

// wantServices is how many processes of each service the cluster tests run.
func wantServices() map[string]int {
	out := map[string]int{}
	for _, s := range clustertest.Services {
		out[s] = 1
	}
	out[clustertest.History] = clustertest.Histories
	return out
}

type composeTemporal struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Entrypoint  []string          `yaml:"entrypoint"`
		Environment map[string]string `yaml:"environment"`
		Volumes     []string          `yaml:"volumes"`
		Deploy      struct {
			Replicas *int `yaml:"replicas"`
		} `yaml:"deploy"`
		DependsOn dependsOn `yaml:"depends_on"`
	} `yaml:"services"`
}

// dependsOn is compose's depends_on, either form: service → condition
// ("service_started" for the list form).
type dependsOn map[string]string

func (d *dependsOn) UnmarshalYAML(n *yaml.Node) error {
	*d = dependsOn{}
	if n.Kind == yaml.SequenceNode {
		var names []string
		if err := n.Decode(&names); err != nil {
			return err
		}
		for _, s := range names {
			(*d)[s] = "service_started"
		}
		return nil
	}
	var m map[string]struct {
		Condition string `yaml:"condition"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	for s, c := range m {
		(*d)[s] = c.Condition
	}
	return nil
}

func TestComposeTemporalIsTheTestedCluster(t *testing.T) {
	raw, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f composeTemporal
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	steps := map[string]string{}
	for name, s := range f.Services {
		cmd := strings.Join(s.Entrypoint, " ")
		switch {
		case strings.HasPrefix(s.Image, "temporalio/server"):
			if s.Image != serverImage {
				t.Errorf("compose %s: image %s, want %s", name, s.Image, serverImage)
			}
			if !temporalCommand.MatchString(cmd) || !strings.Contains(cmd, `--service "$$TEMPORAL_SERVICE"`) {
				t.Errorf("compose %s: entrypoint %q does not run deployments/temporal's configuration", name, cmd)
			}
			if !slices.Contains(s.Volumes, "../temporal/config:/etc/temporal/ats:ro") {
				t.Errorf("compose %s: volumes %v, want deployments/temporal/config mounted", name, s.Volumes)
			}
			n := 1
			if s.Deploy.Replicas != nil {
				n = *s.Deploy.Replicas
			}
			got[s.Environment["TEMPORAL_SERVICE"]] += n
			if s.Environment["TEMPORAL_SERVICE"] == clustertest.Frontend && s.Environment["TEMPORAL_TLS_CLIENT_CA"] == "" {
				t.Errorf("compose %s: the frontend does not require client certificates", name)
			}
			if s.DependsOn["temporal-schema"] != "service_completed_successfully" {
				t.Errorf("compose %s: starts before the schema is set up", name)
			}
		case strings.HasPrefix(s.Image, "temporalio/admin-tools"):
			if !strings.HasPrefix(s.Image, adminToolsPrefix) {
				t.Errorf("compose %s: image %s, want %s…", name, s.Image, adminToolsPrefix)
			}
			if m := regexp.MustCompile(`/etc/temporal/ats/setup\.sh"?,? "?(\w+)`).FindStringSubmatch(cmd); m != nil {
				steps[m[1]] = name
			} else {
				t.Errorf("compose %s: entrypoint %q does not run setup.sh", name, cmd)
			}
		}
	}
	if !equalCounts(got, wantServices()) {
		t.Errorf("compose runs the Temporal services %v, the tests %v", got, wantServices())
	}
	if steps["schema"] == "" || steps["namespace"] == "" {
		t.Errorf("compose runs setup.sh steps %v, want schema and namespace", steps)
	}
	for _, name := range []string{"api", "worker"} {
		if f.Services[name].DependsOn["temporal-namespace"] != "service_completed_successfully" {
			t.Errorf("compose %s: starts before the namespace is set up", name)
		}
	}
}

type k8sTemporal struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Replicas *int `yaml:"replicas"`
		Template struct {
			Spec struct {
				Containers []struct {
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func TestKubernetesTemporalIsTheTestedCluster(t *testing.T) {
	raw, err := os.ReadFile("kubernetes/temporal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	got := map[string]int{}
	steps := map[string]bool{}
	config := false
	for {
		var o k8sTemporal
		if err := dec.Decode(&o); err != nil {
			break
		}
		if o.Kind == "ConfigMap" && o.Metadata.Name == "temporal-config" {
			config = true
			// The file the tests run, byte for byte.
			for key, file := range map[string]string{"production.yaml": "temporal/config/production.yaml",
				"dynamicconfig.yaml": "temporal/config/dynamicconfig.yaml", "setup.sh": "temporal/setup.sh"} {
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if o.Data[key] != string(want) {
					t.Errorf("ConfigMap temporal-config %s differs from %s", key, file)
				}
			}
		}
		for _, c := range o.Spec.Template.Spec.Containers {
			cmd := strings.Join(c.Command, " ")
			switch {
			case strings.HasPrefix(c.Image, "temporalio/server"):
				if c.Image != serverImage {
					t.Errorf("%s %s: image %s, want %s", o.Kind, o.Metadata.Name, c.Image, serverImage)
				}
				m := temporalCommand.FindStringSubmatch(cmd)
				if m == nil {
					t.Errorf("%s %s: command %q does not run deployments/temporal's configuration", o.Kind, o.Metadata.Name, cmd)
					continue
				}
				n := 1
				if o.Spec.Replicas != nil {
					n = *o.Spec.Replicas
				}
				// Two replicas of the frontend (one per node) serve the same
				// process kind as the tests' one.
				if m[1] == clustertest.Frontend {
					n = 1
					ca := slices.ContainsFunc(c.Env, func(e struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					}) bool {
						return e.Name == "TEMPORAL_TLS_CLIENT_CA" && e.Value != ""
					})
					if !ca {
						t.Errorf("%s: the frontend does not require client certificates", o.Metadata.Name)
					}
				}
				got[m[1]] += n
			case strings.HasPrefix(c.Image, "temporalio/admin-tools"):
				if !strings.HasPrefix(c.Image, adminToolsPrefix) {
					t.Errorf("%s %s: image %s, want %s…", o.Kind, o.Metadata.Name, c.Image, adminToolsPrefix)
				}
				if len(c.Command) == 3 && c.Command[1] == "/etc/temporal/ats/setup.sh" {
					steps[c.Command[2]] = true
				} else {
					t.Errorf("%s %s: command %q does not run setup.sh", o.Kind, o.Metadata.Name, cmd)
				}
			}
		}
	}
	if !config {
		t.Error("no ConfigMap temporal-config")
	}
	if !equalCounts(got, wantServices()) {
		t.Errorf("Kubernetes runs the Temporal services %v, the tests %v", got, wantServices())
	}
	if !steps["schema"] || !steps["namespace"] {
		t.Errorf("Kubernetes runs setup.sh steps %v, want schema and namespace", steps)
	}
}

// setup.sh registers exactly the search attributes the workflows use.
func TestSetupRegistersTheSearchAttributes(t *testing.T) {
	raw, err := os.ReadFile("temporal/setup.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SEARCH_ATTRIBUTES="([^"]*)"`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("setup.sh has no SEARCH_ATTRIBUTES")
	}
	var got, want []string
	got = strings.Fields(string(m[1]))
	for _, k := range workflows.SearchAttributes() {
		want = append(want, k.GetName()+"="+typeName(k.GetValueType().String()))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("setup.sh registers %v, the workflows use %v", got, want)
	}
}

// typeName is the CLI's name of an indexed value type ("INDEXED_VALUE_TYPE_KEYWORD_LIST" → "KeywordList").
func typeName(enum string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.TrimPrefix(enum, "INDEXED_VALUE_TYPE_"), "_") {
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	return b.String()
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
