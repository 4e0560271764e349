package embed_test

import (
	"context"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

func mkSkill(name, desc, body string) *catalog.Skill {
	return &catalog.Skill{
		Path: name, Name: name, Description: desc, Routable: true,
		Doc: &skill.Document{HasFrontmatter: true, Body: body, Frontmatter: skill.Frontmatter{Name: name, Description: desc}},
	}
}

// fixture is a small catalog where spelling and meaning differ: the fake
// model (embedtest) knows that MongoDB is a NoSQL database, that a cluster
// is Kubernetes and that invoices are billing; the lexical engine does not.
func fixture() []*catalog.Skill {
	return []*catalog.Skill{
		mkSkill("sql-schema", "Design relational schemas for PostgreSQL: tables, foreign keys, migrations.",
			"# SQL schema\n\nNormalise tables and write migrations.\n"),
		mkSkill("nosql-modeling", "Model documents for NoSQL databases: embedding versus referencing, collections and indexes.",
			"# NoSQL data modeling\n\nChoose between embedded documents and references.\n"),
		mkSkill("k8s-deploy", "Deploy services to Kubernetes with Helm charts and rolling updates.",
			"# Deploy\n\nhelm upgrade --install.\n"),
		mkSkill("billing-reports", "Monthly billing reports: revenue, refunds and payments per customer.",
			"# Billing\n\nExport payments to CSV.\n"),
		mkSkill("pdf", "Extract text and tables from PDF files, fill PDF forms.",
			"# PDF\n\nUse pypdf.\n"),
		mkSkill("document-store-admin", "Administer NoSQL stores: backups, replica sets, sharding.",
			"# NoSQL admin\n\nNoSQL backups.\n"),
		mkSkill("csv-tools", "Clean, join and convert CSV files with indexes and collections of columns.",
			"# CSV\n\nUse pandas.\n"),
	}
}

// tableModel gives each fixture skill its own dimension and the query a
// fixed vector: a model that disagrees with the lexical engine on purpose.
type tableModel struct{ query map[string]float32 }

func (m tableModel) Model() string { return "table" }

func (m tableModel) Embed(_ context.Context, texts []string) ([][]float32, error) {
	skills := fixture()
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, len(skills))
		name, _, isSkill := strings.Cut(text, "\n")
		for j, sk := range skills {
			if isSkill && sk.Name == name {
				v[j] = 1
			} else if !isSkill {
				v[j] = m.query[sk.Name]
			}
		}
		out[i] = v
	}
	return out, nil
}
