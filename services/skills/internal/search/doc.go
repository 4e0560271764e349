// Package search finds the skills that fit a request, and says when none
// does.
//
// It owns text analysis (analyze.go: tokens, Unicode normalisation, accent
// folding, stop words, Snowball stemming for English, French, Spanish and
// German, irregular English forms, character bigrams for Japanese and
// Chinese), the in-memory inverted index over a catalog's routable skills
// (index.go), ranked search (query.go, rank.go: BM25F over name,
// description, keywords/tags/category, headings, prose and code blocks, with
// typo tolerance, word splitting, cross-language stems and proximity
// bigrams), calibration of the best score into a probability with
// abstention when nothing applies (calibrate.go), the fusion of a query with
// the caller's restatements of it (restated.go), seed 004's dynamic cut and
// the filters (search.go), seed 002's all-terms mode (allterms.go),
// excerpts (excerpt.go) — and the seed-000 keyword matcher and the match
// decision (keyword.go, match.go).
//
// A Router (router.go) keeps the index and matcher of the catalog being
// served, over the skills a server routes (enabled, served, routable), and
// builds them once per snapshot (New takes about 120 ms for 400 skills,
// 360 ms for 3,000). An AnalysisCache (cache.go), kept in the state folder,
// holds each skill's analysed text so that a build, or the next process,
// analyses only the skills that changed, giving the same index (reading
// the file and building take about a third of the CPU time of analysing
// the benchmark's 387 skills). The package does not load or parse skills (packages
// catalog and skill hand it an immutable snapshot) or talk to clients
// (package server). Nothing is fetched at run
// time: stemmers and stop words are compiled in.
//
// Quality is measured on the routing benchmark beside the repository
// (TestQuality, TestAblation, TestFusionAblation, TestCalibration; see
// quality_test.go and package routingbench), and ranking golden files of
// representative queries (testdata/ranking on the benchmark's corpus,
// testdata/restated on a small catalog of our own) show every ranking a
// change moves; docs/routing.md has the tables. Tried there and left out
// because none helped: four general recall expansions for paraphrases —
// pseudo-relevance feedback, latent semantic indexing over the catalog
// (blended or fused by reciprocal rank), term co-occurrence learned from the catalog, WordNet synonyms — whose
// code is in commit 8cb52e8 so that the measurement can be repeated on
// another catalog; and burstiness- or field-based idf corrections, acronym
// expansions mined from the catalog, separate saturation of the body,
// coverage in the ranking, proximity pairs in bodies, conflation of stems
// that extend one another, other field weights. The queries still missed
// alone need knowledge no lexical method has (that MongoDB is a NoSQL
// database): the caller's restatement brings it (restated.go).
//
// Why not bleve: on the benchmark's skills, bleve v2.6.1 needed 7.6 s to
// index 387 skills in memory (2.2 s with scorch on disk; 21.5 s for 3,000)
// and answered in 1.7 ms at the median on 3,000 skills, against targets of
// 600 ms and 1 ms; and calibration and typo tolerance need the raw
// statistics (idf, field frequencies, the vocabulary) that an in-process
// index of a few thousand short documents exposes for free.
package search
