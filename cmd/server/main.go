// Command server runs Freshet: a Postgres-wire SQL server whose
// materialized views are incremental dataflows.
//
// This build carries the dataflow runtime only; the SQL service that
// listens on --listen is not built yet, so the command says so and exits.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"runtime"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:6875", "address to accept Postgres connections on")
	dataDir := flag.String("data-dir", "./freshet-data", "directory for the server's data")
	workers := flag.Int("workers", runtime.NumCPU(), "number of dataflow workers")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	logger.Error("the SQL service is not available in this build: only the dataflow runtime exists so far",
		"listen", *listen, "data_dir", *dataDir, "workers", *workers)
	fmt.Fprintln(os.Stderr, "freshet: nothing to serve yet; see README.md for the state of the project")
	os.Exit(2)
}
