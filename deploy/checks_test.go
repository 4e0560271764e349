package deploy

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// facts are what the checks compare the manifests with, read from the
// sources of the binaries (see facts_test.go).
type facts struct {
	// env is every variable name the binaries read.
	env map[string]bool
	// liveness is the gRPC health service name of liveness ("" is readiness).
	liveness string
	// livePath and readyPath are the HTTP probes of the gateways.
	livePath, readyPath string
	// image maps each path of the image to the binary built there.
	image map[string]binary
	// imageUser is the final stage's USER (uid).
	imageUser int64
}

// listenFlags are the flags by which the binaries bind a port, and what
// each serves.
var listenFlags = map[string]string{"--grpc": "grpc", "--http": "http", "--metrics": "metrics"}

// flagValue returns the value of flag name in args (--name=value or
// --name value), and whether it is there.
func flagValue(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// boundPorts are the ports a container's flags bind, port → what it serves.
func boundPorts(c corev1.Container) (map[int32]string, []string) {
	out := map[int32]string{}
	var problems []string
	for flag, what := range listenFlags {
		v, ok := flagValue(c.Args, flag)
		if !ok {
			continue
		}
		_, p, err := net.SplitHostPort(v)
		n, perr := strconv.ParseUint(p, 10, 16)
		if err != nil || perr != nil || n == 0 {
			problems = append(problems, fmt.Sprintf("container %s: %s=%s is not host:port with a fixed port", c.Name, flag, v))
			continue
		}
		out[int32(n)] = what
	}
	return out, problems
}

// portOf resolves a probe's or a Service's port (a number or a container
// port's name) against the container's declared ports.
func portOf(c corev1.Container, p intstr.IntOrString) (int32, bool) {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && cp.Name == p.StrVal) || (p.Type == intstr.Int && cp.ContainerPort == p.IntVal) {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

// checkDeployment checks one Deployment on its own and against facts.
func checkDeployment(d *appsv1.Deployment, f facts) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("Deployment %s: ", d.Name)+fmt.Sprintf(format, args...))
	}
	pod := d.Spec.Template.Spec
	sel, err := metav1AsSelector(d.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		bad("selector %s does not select its own pods (%s)", jsonString(d.Spec.Selector), jsonString(d.Spec.Template.Labels))
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		bad("securityContext.runAsNonRoot is not true")
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		bad("securityContext.seccompProfile is not RuntimeDefault")
	}
	if psc != nil && psc.RunAsUser != nil && *psc.RunAsUser != f.imageUser {
		bad("runAsUser %d is not the image's USER %d", *psc.RunAsUser, f.imageUser)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for _, c := range pod.Containers {
		problems = append(problems, checkContainer(d.Name, c, volumes, f)...)
	}
	return problems
}

func checkContainer(deployment string, c corev1.Container, volumes map[string]corev1.Volume, f facts) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("Deployment %s, container %s: ", deployment, c.Name)+fmt.Sprintf(format, args...))
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		bad("no securityContext")
	default:
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			bad("securityContext.readOnlyRootFilesystem is not true")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			bad("securityContext.allowPrivilegeEscalation is not false")
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
			bad("securityContext.capabilities does not drop ALL (and add none)")
		}
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := c.Resources.Requests[r]; !ok {
			bad("no %s request", r)
		}
		if _, ok := c.Resources.Limits[r]; !ok {
			bad("no %s limit", r)
		}
	}

	// The command is a binary of the image.
	bin := ""
	if len(c.Command) == 0 {
		bad("no command: the manifests name the binary they run")
	} else if b, ok := f.image[c.Command[0]]; !ok {
		bad("command %s is not a binary the Containerfile puts in the image (it has %s)", c.Command[0], strings.Join(sortedKeys(f.image), ", "))
	} else {
		bin = b.name
	}

	// Ports: every port a flag binds is declared, every declared port is
	// bound, and every probe asks a bound port what that port answers.
	bound, more := boundPorts(c)
	for _, p := range more {
		bad("%s", p)
	}
	declared := map[int32]bool{}
	for _, cp := range c.Ports {
		declared[cp.ContainerPort] = true
		if _, ok := bound[cp.ContainerPort]; !ok {
			bad("containerPort %s (%d) is bound by none of its flags %v", cp.Name, cp.ContainerPort, c.Args)
		}
	}
	for p, what := range bound {
		if !declared[p] {
			bad("port %d (%s) is bound by a flag but not declared in ports", p, what)
		}
	}
	probes := []struct {
		kind  string
		probe *corev1.Probe
	}{{"startupProbe", c.StartupProbe}, {"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}}
	for _, pr := range probes {
		if pr.probe == nil {
			if pr.kind != "startupProbe" {
				bad("no %s", pr.kind)
			}
			continue
		}
		live := pr.kind != "readinessProbe"
		switch h := pr.probe.ProbeHandler; {
		case h.GRPC != nil:
			port := h.GRPC.Port
			service := ""
			if h.GRPC.Service != nil {
				service = *h.GRPC.Service
			}
			want := ""
			if live {
				want = f.liveness
			}
			if bound[port] != "grpc" || !declared[port] {
				bad("%s asks gRPC port %d, which is not the declared port of its --grpc flag (%v)", pr.kind, port, c.Args)
			}
			if service != want {
				bad("%s asks the health of service %q; the server answers %s with service %q", pr.kind, service, map[bool]string{true: "liveness", false: "readiness"}[live], want)
			}
		case h.HTTPGet != nil:
			port, ok := portOf(c, h.HTTPGet.Port)
			want := f.readyPath
			if live {
				want = f.livePath
			}
			if !ok || bound[port] != "http" {
				bad("%s asks HTTP port %s, which is not the declared port of its --http flag (%v)", pr.kind, h.HTTPGet.Port.String(), c.Args)
			}
			if h.HTTPGet.Path != want {
				bad("%s asks %s; the gateway answers it at %s", pr.kind, h.HTTPGet.Path, want)
			}
		default:
			bad("%s is neither gRPC health nor HTTP: %s", pr.kind, jsonString(pr.probe.ProbeHandler))
		}
	}

	// Environment: every name is one the binaries read, or one a flag of
	// this container names.
	named := map[string]bool{}
	for _, fl := range []string{"--token-env", "--auth-token-env"} {
		if v, ok := flagValue(c.Args, fl); ok {
			named[v] = true
		}
	}
	for _, e := range c.Env {
		if !f.env[e.Name] && !named[e.Name] {
			bad("env %s is read by no binary (not in config.EnvVars, no getenv of it, not named by --token-env or --auth-token-env)", e.Name)
		}
	}
	for _, e := range c.EnvFrom {
		bad("envFrom %s: name each variable, so that the check can see it", jsonString(e))
	}

	// The state folder and /tmp are on volumes: the root file system is
	// read-only.
	writable := func(dir string) bool {
		for _, m := range c.VolumeMounts {
			if _, ok := volumes[m.Name]; ok && !m.ReadOnly && (dir == m.MountPath || strings.HasPrefix(dir, strings.TrimSuffix(m.MountPath, "/")+"/")) {
				return true
			}
		}
		return false
	}
	if !writable("/tmp") {
		bad("/tmp is not a writable volume mount, and the root file system is read-only")
	}
	if bin == "skillsd" {
		home := ""
		for _, e := range c.Env {
			if e.Name == "SKILLSD_HOME" {
				home = e.Value
			}
		}
		switch {
		case home == "":
			bad("no SKILLSD_HOME: the state would go to the image's home folder, on a read-only root file system")
		case !writable(home):
			bad("SKILLSD_HOME=%s is not on a writable volume mount", home)
		}
	}
	return problems
}

// configFile returns the config.yaml a skillsd container loads: the
// --config flag's path must be a key of a ConfigMap mounted as a volume.
func configFile(d *appsv1.Deployment, c corev1.Container, cms map[string]*corev1.ConfigMap) (string, []string) {
	p, ok := flagValue(c.Args, "--config")
	if !ok {
		return "", []string{fmt.Sprintf("Deployment %s, container %s: no --config flag", d.Name, c.Name)}
	}
	vols := map[string]corev1.Volume{}
	for _, v := range d.Spec.Template.Spec.Volumes {
		vols[v.Name] = v
	}
	for _, m := range c.VolumeMounts {
		v, ok := vols[m.Name]
		if !ok || v.ConfigMap == nil || path.Dir(p) != path.Clean(m.MountPath) {
			continue
		}
		cm, ok := cms[v.ConfigMap.Name]
		if !ok {
			return "", []string{fmt.Sprintf("Deployment %s: volume %s mounts ConfigMap %s, which is not rendered", d.Name, v.Name, v.ConfigMap.Name)}
		}
		text, ok := cm.Data[path.Base(p)]
		if !ok {
			return "", []string{fmt.Sprintf("Deployment %s, container %s: --config=%s, but ConfigMap %s (mounted at %s) has no key %s (keys %s)",
				d.Name, c.Name, p, cm.Name, m.MountPath, path.Base(p), strings.Join(sortedKeys(cm.Data), ", "))}
		}
		return text, nil
	}
	return "", []string{fmt.Sprintf("Deployment %s, container %s: --config=%s is in no ConfigMap volume it mounts", d.Name, c.Name, p)}
}

// checkSelectors checks the Services and disruption budgets against the
// Deployments they select.
func checkSelectors(o *objects) []string {
	var problems []string
	selected := func(sel labels.Selector) []*appsv1.Deployment {
		var out []*appsv1.Deployment
		for _, d := range o.deployments {
			if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				out = append(out, d)
			}
		}
		return out
	}
	for _, s := range o.services {
		if len(s.Spec.Selector) == 0 {
			problems = append(problems, fmt.Sprintf("Service %s: no selector", s.Name))
			continue
		}
		ds := selected(labels.SelectorFromSet(s.Spec.Selector))
		if len(ds) == 0 {
			problems = append(problems, fmt.Sprintf("Service %s: its selector %v selects no Deployment's pods", s.Name, s.Spec.Selector))
		}
		for _, d := range ds {
			for _, sp := range s.Spec.Ports {
				found := false
				for _, c := range d.Spec.Template.Spec.Containers {
					if _, ok := portOf(c, sp.TargetPort); ok {
						found = true
					}
				}
				if !found {
					problems = append(problems, fmt.Sprintf("Service %s, port %s: targetPort %s is no containerPort of Deployment %s", s.Name, sp.Name, sp.TargetPort.String(), d.Name))
				}
			}
		}
	}
	for _, p := range o.pdbs {
		sel, err := metav1AsSelector(p.Spec.Selector)
		if err != nil {
			problems = append(problems, fmt.Sprintf("PodDisruptionBudget %s: %v", p.Name, err))
			continue
		}
		ds := selected(sel)
		if len(ds) == 0 {
			problems = append(problems, fmt.Sprintf("PodDisruptionBudget %s: selects no Deployment's pods", p.Name))
		}
		for _, d := range ds {
			if p.Spec.MaxUnavailable == nil || d.Spec.Replicas == nil || p.Spec.MaxUnavailable.IntValue() >= int(*d.Spec.Replicas) {
				problems = append(problems, fmt.Sprintf("PodDisruptionBudget %s: maxUnavailable must be a number below Deployment %s's replicas", p.Name, d.Name))
			}
		}
	}
	return problems
}

// checkSecrets checks every secretKeyRef against the example Secrets.
func checkSecrets(o *objects, examples map[string]map[string]string) []string {
	var problems []string
	for _, d := range o.deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					continue
				}
				ref := e.ValueFrom.SecretKeyRef
				keys, ok := examples[ref.Name]
				if !ok {
					problems = append(problems, fmt.Sprintf("Deployment %s, env %s: Secret %s has no secret.example.yaml entry saying what to create", d.Name, e.Name, ref.Name))
					continue
				}
				if _, ok := keys[ref.Key]; !ok {
					problems = append(problems, fmt.Sprintf("Deployment %s, env %s: Secret %s has no key %s in its example (keys %s)", d.Name, e.Name, ref.Name, ref.Key, strings.Join(sortedKeys(keys), ", ")))
				}
			}
		}
	}
	return problems
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// metav1AsSelector is s as a selector; a missing or empty one is an error
// (it would select everything).
func metav1AsSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return nil, fmt.Errorf("no selector")
	}
	return metav1.LabelSelectorAsSelector(s)
}
