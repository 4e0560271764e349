package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// objects are the rendered objects of one kustomization, by kind.
type objects struct {
	deployments []*appsv1.Deployment
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	pdbs        []*policyv1.PodDisruptionBudget
}

// render builds the kustomization in dir as `kustomize build` does and
// decodes every object strictly into its API type: a field the type does
// not have (or spelt in another case), a duplicate field, or a kind this
// function does not know is an error.
func render(dir string) (*objects, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out objects
	for _, r := range m.Resources() {
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		id := fmt.Sprintf("%s %s/%s", r.GetApiVersion(), r.GetKind(), r.GetName())
		var target any
		switch r.GetApiVersion() + " " + r.GetKind() {
		case "apps/v1 Deployment":
			d := new(appsv1.Deployment)
			out.deployments, target = append(out.deployments, d), d
		case "v1 Service":
			s := new(corev1.Service)
			out.services, target = append(out.services, s), s
		case "v1 ConfigMap":
			c := new(corev1.ConfigMap)
			out.configMaps, target = append(out.configMaps, c), c
		case "policy/v1 PodDisruptionBudget":
			p := new(policyv1.PodDisruptionBudget)
			out.pdbs, target = append(out.pdbs, p), p
		default:
			return nil, fmt.Errorf("%s: a kind the render test does not know; decode and check it here before shipping it", id)
		}
		if err := decodeStrict(data, target); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
	}
	return &out, nil
}

// decodeStrict decodes JSON as the API server does in strict mode
// (sigs.k8s.io/json): unknown, duplicate and case-mismatched fields fail.
func decodeStrict(data []byte, v any) error {
	strict, err := kjson.UnmarshalStrict(data, v, kjson.DisallowUnknownFields, kjson.DisallowDuplicateFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("strict decoding: %s", strings.Join(msgs, "; "))
	}
	return nil
}

// secretExamples reads every secret.example.yaml under root: the Secrets
// the manifests may reference, by name, with their example values by key.
func secretExamples(root string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "secret.example.yaml" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, doc := range strings.Split(string(data), "\n---\n") {
			js, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				return fmt.Errorf("%s, document %d: %w", p, i+1, err)
			}
			var s corev1.Secret
			if err := decodeStrict(js, &s); err != nil {
				return fmt.Errorf("%s, document %d: %w", p, i+1, err)
			}
			if s.Kind != "Secret" || s.Name == "" {
				return fmt.Errorf("%s, document %d: want a named Secret, got kind %q name %q", p, i+1, s.Kind, s.Name)
			}
			keys := map[string]string{}
			for k, v := range s.StringData {
				keys[k] = v
			}
			for k, v := range s.Data {
				keys[k] = string(v)
			}
			out[s.Name] = keys
		}
		return nil
	})
	return out, err
}

// jsonString is v as JSON, for messages.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
