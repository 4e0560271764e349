package mcpgw

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// BenchmarkListChangedFanOut measures one catalog change's notifications:
// from the watch's call until every one of n sessions (in-memory transports,
// protocol 2025-06-18) has received both list_changed notifications.
func BenchmarkListChangedFanOut(b *testing.B) {
	conn := skillstest.Start(b, skillsd.Options{SkillsDirs: []string{b.TempDir()}, NoWatch: true})
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			w := NewCatalogWatch()
			server, err := New(conn, Options{CatalogWatch: w})
			if err != nil {
				b.Fatal(err)
			}
			var got atomic.Int64
			done := make(chan struct{}, 1)
			want := int64(2 * n)
			note := func() {
				if got.Add(1) == want {
					done <- struct{}{}
				}
			}
			for range n {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := server.Connect(b.Context(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = ss.Close() })
				client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ClientOptions{
					ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { note() },
					PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { note() },
				})
				cs, err := client.Connect(b.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = cs.Close() })
			}
			b.ResetTimer()
			for range b.N {
				got.Store(0)
				w.note.listChanged(b.Context(), server)
				<-done
			}
		})
	}
}
