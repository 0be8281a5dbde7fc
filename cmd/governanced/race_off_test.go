//go:build !race

package main

// raceEnabled tells long tests to scale down under the race detector.
const raceEnabled = false
