package oracle

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests, then stops the live cluster the live tests share, if they started
// one.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	stopLive(code != 0)
	os.Exit(code)
}
