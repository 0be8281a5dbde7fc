// Package demo is the small governance tree built into the binary, served when
// `governanced serve` is started without a tree so that a first run needs no
// files: three apps (metering with a deployer overlay, open weather data
// governed by globs, a grid operator's data with an organization filter) and
// an owners registry their ownership names resolve against.
//
// It is sample data, not a template to deploy: the organisations and URLs are
// examples.
package demo
