// Package search finds the datasets of a tree by what people know of them:
// words of a key, a title, a description, a tag, an owner's id, name or
// alias, the app or the source system.
//
// Text is read as words: runs of letters and digits, lower-cased, so that
// "ICON-D2" is the words icon and d2 and the key
// datasets.ds_dev_gold.dwd_icon_d2_gusts holds both. A query is words too;
// a dataset matches when every word of the query begins a word of one of
// its fields (any field, in any order), and ranks by how well: first by how
// many of the query's words its key or title holds, then by a weight per
// field (key and title, then tags, owners, app, source system,
// description), a whole word counting twice a word it only begins.
//
// An Index is one app's datasets, built with the app from its served
// configuration, and reused with it when the app is (ADR-0004): a search
// visits every app's index, in time that grows with the datasets of the
// apps holding the query's words. An owner's display name and aliases are
// the registry's, read when a search runs (Index.Match) for the owners the
// app names, so an edit of the registry builds no index again. The values an app's
// defaults give its datasets (ownership, source system, tags, …) are indexed
// once for the app, not once per dataset. An app's distinct words are held
// back to back in one string, each placed by where it starts: no pointer per
// word for the garbage collector to follow, and a word's postings are
// bytes, most of them one a dataset (ADR-0018).
//
// Indexes are immutable once built and safe for concurrent use.
package search
