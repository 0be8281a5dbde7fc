// Package watch turns what happens to a served tree's files into reload
// requests: file-system events under the input directories (tree roots
// recursively, the directories of the overlay directory, owners files and
// placeholder map flatly), debounced so that an editor's save or a git
// checkout of many files asks for one reload; SIGHUP, which asks at once; and a
// periodic rescan for volumes that deliver no events (network file systems,
// some container mounts).
//
// It only asks. Whether anything changed is the snapshot Store's to decide
// (it compares content hashes), and what a reload did is the caller's to log.
// Reload requests are delivered one at a time, never concurrently.
package watch
