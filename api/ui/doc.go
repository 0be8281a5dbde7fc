// Package ui is governanced's web page: server-rendered HTML for the people
// who write and review governance files, over the same snapshot the JSON
// routes serve. It shows what is served and why — every dataset with its
// gates, each rule field with the file and line that supplied it, the
// owners, the check report and the last reload — and changes nothing.
//
// Pages are html/template templates and a stylesheet and a script embedded
// in the binary: no build step, no framework, readable without JavaScript.
// Each handler reads one snapshot, builds a view model and renders it; what
// a page counts over the whole tree is worked out once per revision
// (derived.go). The package registers nothing itself: api/routes.go mounts
// its handlers under /ui, with the other read routes' authentication.
//
// It is not where governance semantics live: resolution, merging, exposure,
// the facet and the check are the domain packages', and a page only
// presents what they answer.
package ui
