package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/skillsd/skillsd/gateways/rest/restgw"
)

// restSurface calls the REST gateway (restgw over the same gRPC connection)
// with net/http, and decodes its JSON with encoding/json into the shapes the
// HTTP API documents, not into the proto messages: a null where a list
// belongs stays visible.
type restSurface struct {
	client *http.Client
	base   string
}

func newRESTSurface(t *testing.T, conn *grpc.ClientConn, tr transport) *restSurface {
	t.Helper()
	h, err := restgw.New(t.Context(), conn, restgw.Options{})
	if err != nil {
		t.Fatalf("restgw.New: %v", err)
	}
	if tr == loopback {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return &restSurface{client: srv.Client(), base: srv.URL}
	}
	return &restSurface{client: &http.Client{Transport: handlerTransport{h}}, base: "http://rest.test"}
}

// handlerTransport serves requests with an http.Handler in memory.
type handlerTransport struct{ h http.Handler }

func (ht handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	ht.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

func (*restSurface) name() string { return "rest" }

func (*restSurface) mask(o Outcome) Outcome { return o }

// skillURLPath is the path of GET /v1/skills/{skill_path=**}: each segment
// escaped, the slashes kept.
func skillURLPath(ref string) string {
	segs := strings.Split(ref, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "/v1/skills/" + strings.Join(segs, "/")
}

func (r *restSurface) load(t *testing.T, ref string) Outcome {
	var resp restGetSkill
	if f := r.get(t, skillURLPath(ref), &resp); f != nil {
		return Outcome{Error: f}
	}
	return Outcome{Loaded: resp.outcome(t)}
}

func (r *restSurface) tree(t *testing.T, path string) Outcome {
	target := "/v1/skills:tree"
	if path != "" {
		target += "?path=" + url.QueryEscape(path)
	}
	var resp struct {
		Skills []restNode `json:"skills"`
	}
	if f := r.get(t, target, &resp); f != nil {
		return Outcome{Error: f}
	}
	return Outcome{Tree: restNodes(resp.Skills)}
}

func (r *restSurface) list(t *testing.T) Outcome {
	var resp struct {
		Skills        []restSkill `json:"skills"`
		NextPageToken string      `json:"next_page_token"`
		TotalSize     int         `json:"total_size"`
	}
	if f := r.get(t, "/v1/skills", &resp); f != nil {
		return Outcome{Error: f}
	}
	l := &Listing{NextPageToken: resp.NextPageToken, TotalSize: resp.TotalSize}
	if resp.Skills != nil {
		l.Skills = make([]Listed, 0, len(resp.Skills))
		for _, s := range resp.Skills {
			l.Skills = append(l.Skills, *s.outcome(t))
		}
	}
	return Outcome{List: l}
}

func (r *restSurface) diagnostics(t *testing.T) Outcome {
	var resp struct {
		Diagnostics  []Diagnostic `json:"diagnostics"`
		ErrorCount   int          `json:"error_count"`
		WarningCount int          `json:"warning_count"`
	}
	if f := r.get(t, "/v1/diagnostics", &resp); f != nil {
		return Outcome{Error: f}
	}
	return Outcome{Diagnostics: &Diagnostics{Diagnostics: resp.Diagnostics, ErrorCount: resp.ErrorCount, WarningCount: resp.WarningCount}}
}

func (r *restSurface) status(t *testing.T) Outcome {
	var resp struct {
		Generation       jsonInt64      `json:"generation"`
		BuiltAt          string         `json:"built_at"`
		SkillCount       int            `json:"skill_count"`
		RoutableCount    int            `json:"routable_count"`
		ErrorCount       int            `json:"error_count"`
		WarningCount     int            `json:"warning_count"`
		Sources          []SourceStatus `json:"sources"`
		Version          string         `json:"version"`
		MatchingStrategy string         `json:"matching_strategy"`
		CatalogID        string         `json:"catalog_id"`
	}
	if f := r.get(t, "/v1/status", &resp); f != nil {
		return Outcome{Error: f}
	}
	st := &Status{
		Generation: int64(resp.Generation), BuiltAt: normTimeString(t, "built_at", resp.BuiltAt),
		SkillCount: resp.SkillCount, RoutableCount: resp.RoutableCount,
		ErrorCount: resp.ErrorCount, WarningCount: resp.WarningCount,
		Sources: resp.Sources, Version: resp.Version, MatchingStrategy: resp.MatchingStrategy,
		CatalogID: resp.CatalogID,
	}
	for i := range st.Sources {
		st.Sources[i].LastSync = normTimeString(t, "last_sync", st.Sources[i].LastSync)
	}
	return Outcome{Status: st}
}

// get sends GET target and decodes a 200 answer into v, or returns the
// error answer as a Failure.
func (r *restSurface) get(t *testing.T, target string, v any) *Failure {
	t.Helper()
	return r.do(t, http.MethodGet, target, nil, v)
}

// post sends POST target with in as its JSON body, and decodes a 200 answer
// into v, or returns the error answer as a Failure.
func (r *restSurface) post(t *testing.T, target string, in, v any) *Failure {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("REST: encoding the body of POST %s: %v", target, err)
	}
	return r.do(t, http.MethodPost, target, b, v)
}

func (r *restSurface) do(t *testing.T, method, target string, reqBody []byte, v any) *Failure {
	t.Helper()
	var rd io.Reader
	if reqBody != nil {
		rd = bytes.NewReader(reqBody)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, r.base+target, rd)
	if err != nil {
		t.Fatalf("REST: building %s %s: %v", method, target, err)
	}
	if reqBody != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("REST: %s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("REST: reading %s %s: %v", method, target, err)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		t.Errorf("REST: %s %s: Content-Type: got %q, want application/json", method, target, resp.Header.Get("Content-Type"))
	}
	if resp.StatusCode != http.StatusOK {
		return restFailure(t, method+" "+target, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("REST: %s %s: decoding %s: %v", method, target, clip(body), err)
	}
	return nil
}

func (r *restSurface) search(t *testing.T, q SearchQuery) Outcome {
	in := map[string]any{"query": q.Query}
	if q.Limit != 0 {
		in["limit"] = q.Limit
	}
	if q.AllTerms {
		in["mode"] = "SEARCH_MODE_ALL_TERMS"
	}
	if q.Category != "" {
		in["category"] = q.Category
	}
	if len(q.Tags) > 0 {
		in["tags"] = q.Tags
	}
	if q.Restated != "" {
		in["restated"] = []string{q.Restated}
	}
	var resp Searched
	if f := r.post(t, "/v1/skills:search", in, &resp); f != nil {
		return Outcome{Error: f}
	}
	return Outcome{Search: &resp}
}

func (r *restSurface) match(t *testing.T, context string) Outcome {
	return r.matchRestated(t, context, "")
}

func (r *restSurface) matchRestated(t *testing.T, context, restated string) Outcome {
	in := map[string]any{"context": context}
	if restated != "" {
		in["restated"] = []string{restated}
	}
	var resp Matched
	if f := r.post(t, "/v1/skills:match", in, &resp); f != nil {
		return Outcome{Error: f}
	}
	resp.Outcome = outcomeName(resp.Outcome)
	return Outcome{Match: &resp}
}

// httpStatus is the HTTP status of each gRPC code (google.rpc.Code's
// documented mapping, which grpc-gateway follows).
var httpStatus = map[codes.Code]int{
	codes.Canceled:           499,
	codes.Unknown:            http.StatusInternalServerError,
	codes.InvalidArgument:    http.StatusBadRequest,
	codes.DeadlineExceeded:   http.StatusGatewayTimeout,
	codes.NotFound:           http.StatusNotFound,
	codes.AlreadyExists:      http.StatusConflict,
	codes.PermissionDenied:   http.StatusForbidden,
	codes.ResourceExhausted:  http.StatusTooManyRequests,
	codes.FailedPrecondition: http.StatusBadRequest,
	codes.Aborted:            http.StatusConflict,
	codes.OutOfRange:         http.StatusBadRequest,
	codes.Unimplemented:      http.StatusNotImplemented,
	codes.Internal:           http.StatusInternalServerError,
	codes.Unavailable:        http.StatusServiceUnavailable,
	codes.DataLoss:           http.StatusInternalServerError,
	codes.Unauthenticated:    http.StatusUnauthorized,
}

// restFailure decodes the gateway's error shape
// {"error": {"code", "message", "details"}}. The gRPC code comes from
// details.grpc_code and must go with the HTTP status; error.code is the
// ErrorInfo reason, or the code's canonical name (NOT_FOUND) when the service
// gave no reason, which normalises to an empty Reason.
func restFailure(t *testing.T, target string, statusCode int, body []byte) *Failure {
	t.Helper()
	var e struct {
		Error *struct {
			Code    *string           `json:"code"`
			Message *string           `json:"message"`
			Details map[string]string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil || e.Error.Code == nil || e.Error.Message == nil || e.Error.Details == nil {
		t.Fatalf("REST: %s: status %d with body %s, want {\"error\": {\"code\", \"message\", \"details\"}} (%v)", target, statusCode, clip(body), err)
	}
	name := e.Error.Details["grpc_code"]
	c, ok := codeByName(name)
	if !ok {
		t.Fatalf("REST: %s: details.grpc_code: got %q, want a gRPC code name", target, name)
	}
	if want := httpStatus[c]; statusCode != want {
		t.Errorf("REST: %s: HTTP status: got %d, want %d for gRPC code %s", target, statusCode, want, c)
	}
	f := &Failure{Code: c.String(), Message: *e.Error.Message, Suggestions: splitList(e.Error.Details["suggestions"])}
	if reason := *e.Error.Code; reason != canonicalName(c) {
		f.Reason = reason
	}
	return f
}

// codeByName finds a gRPC code by its Go spelling ("NotFound").
func codeByName(name string) (codes.Code, bool) {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == name {
			return c, true
		}
	}
	return 0, false
}

// canonicalName is a code's google.rpc.Code name ("NOT_FOUND").
func canonicalName(c codes.Code) string {
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func clip(b []byte) string {
	if len(b) > 400 {
		return string(b[:400]) + "…"
	}
	return string(b)
}

// jsonInt64 is a protojson int64: a JSON string ("123"), or a number.
type jsonInt64 int64

func (n *jsonInt64) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("int64 %s: %w", b, err)
	}
	*n = jsonInt64(v)
	return nil
}

// The REST shapes: protojson with proto field names and unpopulated fields
// emitted.

type restGetSkill struct {
	Skill            *restSkill     `json:"skill"`
	Frontmatter      map[string]any `json:"frontmatter"`
	Instructions     string         `json:"instructions"`
	Content          string         `json:"content"`
	Directory        string         `json:"directory"`
	File             string         `json:"file"`
	Files            []restFile     `json:"files"`
	Assets           []Asset        `json:"assets"`
	Scripts          []Script       `json:"scripts"`
	InheritedAssets  []Asset        `json:"inherited_assets"`
	InheritedScripts []Script       `json:"inherited_scripts"`
	InheritanceChain []string       `json:"inheritance_chain"`
	Diagnostics      []Diagnostic   `json:"diagnostics"`
}

type restFile struct {
	Path      string    `json:"path"`
	SizeBytes jsonInt64 `json:"size_bytes"`
	Digest    string    `json:"digest"`
	MimeType  string    `json:"mime_type"`
	Text      bool      `json:"text"`
}

type restSkill struct {
	SkillPath     string   `json:"skill_path"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Layout        string   `json:"layout"`
	Category      string   `json:"category"`
	Tags          []string `json:"tags"`
	Keywords      []string `json:"keywords"`
	Source        string   `json:"source"`
	Routable      bool     `json:"routable"`
	UserInvocable bool     `json:"user_invocable"`
	AlwaysApply   bool     `json:"always_apply"`
	ParentPath    string   `json:"parent_path"`
	AssetCount    int      `json:"asset_count"`
	ScriptCount   int      `json:"script_count"`
	FileCount     int      `json:"file_count"`
	LoadedAt      *string  `json:"loaded_at"`
	Body          string   `json:"body"`
	ArgumentHint  string   `json:"argument_hint"`
}

type restNode struct {
	Name        string     `json:"name"`
	Path        string     `json:"path"`
	Description string     `json:"description"`
	Keywords    []string   `json:"keywords"`
	AssetCount  int        `json:"asset_count"`
	ScriptCount int        `json:"script_count"`
	Children    []restNode `json:"children"`
}

func (r *restGetSkill) outcome(t *testing.T) *Loaded {
	t.Helper()
	if r.Skill == nil {
		t.Fatalf("REST: GET /v1/skills/…: skill is null")
	}
	sk := r.Skill.outcome(t)
	l := &Loaded{
		Name:             sk.Name,
		SkillPath:        sk.SkillPath,
		Description:      sk.Description,
		Instructions:     r.Instructions,
		Content:          r.Content,
		Directory:        r.Directory,
		Source:           sk.Source,
		LoadedAt:         sk.LoadedAt,
		Frontmatter:      r.Frontmatter,
		Skill:            sk,
		File:             r.File,
		Assets:           r.Assets,
		Scripts:          r.Scripts,
		InheritedAssets:  r.InheritedAssets,
		InheritedScripts: r.InheritedScripts,
		InheritanceChain: r.InheritanceChain,
		Diagnostics:      r.Diagnostics,
	}
	if r.Files != nil {
		l.Files = make([]File, 0, len(r.Files))
		for _, f := range r.Files {
			l.Files = append(l.Files, File{Path: f.Path, SizeBytes: int64(f.SizeBytes), Digest: f.Digest, MimeType: f.MimeType, Text: f.Text})
		}
	}
	return l
}

func (s *restSkill) outcome(t *testing.T) *Listed {
	t.Helper()
	l := &Listed{
		SkillPath: s.SkillPath, Name: s.Name, Description: s.Description, Layout: s.Layout,
		Category: s.Category, Tags: s.Tags, Keywords: s.Keywords, Source: s.Source,
		Routable: s.Routable, UserInvocable: s.UserInvocable, AlwaysApply: s.AlwaysApply,
		ParentPath: s.ParentPath, AssetCount: s.AssetCount, ScriptCount: s.ScriptCount,
		FileCount: s.FileCount, Body: s.Body, ArgumentHint: s.ArgumentHint,
	}
	if s.LoadedAt != nil {
		l.LoadedAt = normTimeString(t, "loaded_at", *s.LoadedAt)
	}
	return l
}

func restNodes(in []restNode) []Node {
	if in == nil {
		return nil
	}
	out := make([]Node, 0, len(in))
	for _, n := range in {
		out = append(out, Node{
			Name: n.Name, Path: n.Path, Description: n.Description, Keywords: n.Keywords,
			AssetCount: n.AssetCount, ScriptCount: n.ScriptCount, Children: restNodes(n.Children),
		})
	}
	return out
}
