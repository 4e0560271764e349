package deploy

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// sourceFacts reads, from the Go sources of the binaries under repo, the
// variable names they read and the names of their health probes.
func sourceFacts(repo string) (facts, error) {
	f := facts{env: map[string]bool{}}
	fromEnvVars := 0
	for _, dir := range []string{"services/skills", "gateways/rest"} {
		err := filepath.WalkDir(filepath.Join(repo, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			file, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					// getenv("NAME"), os.Getenv("NAME"), os.LookupEnv("NAME"),
					// and the names in its argument: getenv(cmp.Or(v, "NAME")).
					name := ""
					switch fn := n.Fun.(type) {
					case *ast.Ident:
						name = fn.Name
					case *ast.SelectorExpr:
						name = fn.Sel.Name
					}
					if (name == "getenv" || name == "Getenv" || name == "LookupEnv") && len(n.Args) > 0 {
						ast.Inspect(n.Args[0], func(a ast.Node) bool {
							if e, ok := a.(ast.Expr); ok {
								if s, ok := stringLit(e); ok && envNameRe.MatchString(s) {
									f.env[s] = true
								}
							}
							return true
						})
					}
				case *ast.ValueSpec:
					for i, id := range n.Names {
						switch {
						case id.Name == "envVars" && i < len(n.Values):
							// config.EnvVars: text("NAME", …) or {Name: "NAME", …}
							lit, ok := n.Values[i].(*ast.CompositeLit)
							if !ok {
								continue
							}
							for _, el := range lit.Elts {
								switch el := el.(type) {
								case *ast.CallExpr:
									// text("NAME", …), or wrapped:
									// enables("section", …, text("NAME", …)).
									ast.Inspect(el, func(n ast.Node) bool {
										if call, ok := n.(*ast.CallExpr); ok && len(call.Args) > 0 {
											if s, ok := stringLit(call.Args[0]); ok && envNameRe.MatchString(s) {
												f.env[s] = true
												fromEnvVars++
											}
										}
										return true
									})
								case *ast.CompositeLit:
									for _, kv := range el.Elts {
										if kv, ok := kv.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Name" {
											if s, ok := stringLit(kv.Value); ok {
												f.env[s] = true
												fromEnvVars++
											}
										}
									}
								}
							}
						case id.Name == "DefaultTokensEnv" && i < len(n.Values):
							if s, ok := stringLit(n.Values[i]); ok {
								f.env[s] = true
							}
						case i < len(n.Values):
							s, ok := stringLit(n.Values[i])
							switch {
							case !ok:
							case id.Name == "LivenessService":
								f.liveness = s
							case id.Name == "LivePath":
								f.livePath = s
							case id.Name == "ReadyPath":
								f.readyPath = s
							}
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			return f, err
		}
	}
	switch {
	case fromEnvVars < 20:
		return f, fmt.Errorf("found %d variables in config's envVars, want the whole list: has services/skills/internal/config/env.go changed shape?", fromEnvVars)
	case f.liveness == "" || f.livePath == "" || f.readyPath == "":
		return f, fmt.Errorf("healthz's LivenessService, LivePath or ReadyPath not found in services/skills/healthz")
	}
	return f, nil
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// binary is one binary the Containerfile builds.
type binary struct {
	name string // base name, such as skillsd
	dir  string // its module, relative to the repository
	pkg  string // its package in the module, such as ./cmd/skillsd
}

var (
	envNameRe = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	goBuildRe = regexp.MustCompile(`^cd (\S+) && go build (?:.* )?-o (\S+) (\./\S+)$`)
	argRe     = regexp.MustCompile(`\$\{(\w+)\}`)
)

// containerFacts reads the Containerfile: the binaries each path of the
// final image holds and how they are built, and the image's user. The
// binaries' packages must be main packages of repo.
func containerFacts(file, repo string, f *facts) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, filepath.Base(file)+": "+fmt.Sprintf(format, args...))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return []string{err.Error()}
	}
	// Instructions, with continuation lines joined and comments dropped.
	var instrs []string
	var cur strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if s, ok := strings.CutSuffix(line, "\\"); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(line)
		instrs = append(instrs, cur.String())
		cur.Reset()
	}
	type stage struct {
		name  string
		env   map[string]string
		built map[string]binary // output path → binary
	}
	args := map[string]string{}
	var stages []*stage
	f.image = map[string]binary{}
	f.imageUser = -1
	for _, in := range instrs {
		op, rest, _ := strings.Cut(in, " ")
		var st *stage
		if len(stages) > 0 {
			st = stages[len(stages)-1]
		}
		switch strings.ToUpper(op) {
		case "ARG":
			if k, v, ok := strings.Cut(rest, "="); ok && st == nil {
				args[k] = v
			}
		case "FROM":
			fields := strings.Fields(rest)
			image := argRe.ReplaceAllStringFunc(fields[0], func(m string) string { return args[argRe.FindStringSubmatch(m)[1]] })
			_, tag, hasTag := strings.Cut(path.Base(image), ":")
			if !hasTag || tag == "" || tag == "latest" {
				bad("FROM %s: pin the base image by a tag other than latest", image)
			}
			s := &stage{env: map[string]string{}, built: map[string]binary{}}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				s.name = fields[2]
			}
			stages = append(stages, s)
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				if k, v, ok := strings.Cut(kv, "="); ok && st != nil {
					st.env[k] = v
				}
			}
		case "RUN":
			m := goBuildRe.FindStringSubmatch(rest)
			if m == nil || st == nil {
				continue
			}
			b := binary{name: path.Base(m[2]), dir: m[1], pkg: m[3]}
			if st.env["CGO_ENABLED"] != "0" {
				bad("%s is built without CGO_ENABLED=0 in its stage's ENV: the image has no C library", b.name)
			}
			if !isMainPackage(filepath.Join(repo, b.dir, b.pkg)) {
				bad("%s: %s/%s is not a main package of the repository", b.name, b.dir, b.pkg)
			}
			st.built[m[2]] = b
		case "COPY":
			fields := strings.Fields(rest)
			from, ok := strings.CutPrefix(fields[0], "--from=")
			if !ok || len(fields) != 3 {
				continue
			}
			var src *stage
			for _, s := range stages {
				if s.name == from {
					src = s
				}
			}
			if src == nil {
				bad("COPY --from=%s: no such stage", from)
				continue
			}
			b, ok := src.built[fields[1]]
			if !ok {
				bad("COPY --from=%s %s: the stage builds no such binary", from, fields[1])
				continue
			}
			dst := fields[2]
			if strings.HasSuffix(dst, "/") {
				dst += path.Base(fields[1])
			}
			f.image[dst] = b
		case "USER":
			uid, _, _ := strings.Cut(rest, ":")
			n, err := strconv.ParseInt(uid, 10, 64)
			if err != nil {
				bad("USER %s: give a numeric uid, so that runAsNonRoot can check it", rest)
			}
			f.imageUser = n
		}
	}
	if len(f.image) == 0 {
		bad("the final stage copies no binary from a build stage")
	}
	return problems
}

// isMainPackage reports whether dir holds a main package.
func isMainPackage(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly)
		if err == nil && file.Name.Name == "main" {
			return true
		}
	}
	return false
}

// buildBinary builds b from the module and package the Containerfile
// names, alone (GOWORK=off), into dir. It keeps the environment's cgo
// setting rather than the image's CGO_ENABLED=0 (which containerFacts
// checks): so the build reuses what make build compiled, where a cgo-less
// build would compile every package that imports net again, minutes on a
// cold cache.
func buildBinary(ctx context.Context, repo string, b binary, dir string) (string, error) {
	out := filepath.Join(dir, b.name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, b.pkg)
	cmd.Dir = filepath.Join(repo, b.dir)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s in %s: %v\n%s", b.pkg, b.dir, err, msg)
	}
	return out, nil
}

// checkConfig runs `skillsd --check-config` with the container's args and
// environment (Secrets from their examples), on the config.yaml the
// container mounts, written to dir.
func checkConfig(ctx context.Context, skillsd, dir string, d *appsv1.Deployment, c corev1.Container, text string, examples map[string]map[string]string) []string {
	file := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		return []string{err.Error()}
	}
	args := []string{"--check-config"}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--config=") {
			a = "--config=" + file
		}
		args = append(args, a)
	}
	env := []string{"HOME=" + dir}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			if v, ok := examples[ref.Name][ref.Key]; ok {
				env = append(env, e.Name+"="+v)
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, skillsd, args...)
	cmd.Dir = dir
	cmd.Env = env
	msg, err := cmd.CombinedOutput()
	if err != nil {
		return []string{fmt.Sprintf("Deployment %s, container %s: skillsd --check-config refuses its configuration (%v): %s", d.Name, c.Name, err, strings.TrimSpace(string(msg)))}
	}
	return nil
}
