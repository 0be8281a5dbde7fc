package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/internal/cli"
	"github.com/celine-eu/governanced/internal/demo"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/watch"
)

// onListen, when set (by tests), is told the address the server listens on.
var onListen func(net.Addr)

// serveConfig is the parsed command line of serve.
type serveConfig struct {
	inputs          snapshot.Inputs
	addr            string
	logFormat       string
	logLevel        zerolog.Level
	limits          api.Limits
	debounce        time.Duration
	rescan          time.Duration
	shutdownTimeout time.Duration
	reloadTimeout   time.Duration
	readHeader      time.Duration
	maxConns        int
	auth            authConfig
	debugAddr       string
	notes           []string // what the environment decided about the check's options
	isolateApps     bool
	stateDir        string
}

// serveFlags are serve's flags as given, before they are checked.
type serveFlags struct {
	c             serveConfig
	check         cli.CheckFlags
	logLevel      string
	authTokenFile string
}

// addServeFlags declares serve's flags on fs.
func addServeFlags(fs *pflag.FlagSet, sf *serveFlags) {
	c := &sf.c
	c.limits = api.DefaultLimits
	fs.SortFlags = false
	fs.StringArrayVar(&c.inputs.Trees, "tree", nil, "a tree root: a directory holding apps/<app>/governance.yaml, or one governance.yaml (repeatable; none: the demo tree)")
	sf.check.Declare(fs, true) // validate's check options, and --discover
	fs.BoolVar(&c.inputs.AllowOutsideLinks, "allow-outside-links", false, "follow symbolic links that lead out of a tree root or the overlay directory (refused by default)")
	fs.StringVar(&c.addr, "addr", "localhost:8080", "the address to listen on; :8080 listens on every interface")
	fs.StringVar(&c.logFormat, "log-format", "json", "log format: json or console")
	fs.StringVar(&sf.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.Var(&sizeValue{&c.limits.MaxBodyBytes}, "max-body-bytes", "largest POST body accepted (suffixes KiB, MiB, GiB)")
	fs.Var(&sizeValue{&c.limits.MaxUploadBytes}, "max-upload-bytes", "most bytes an uploaded tree may hold (suffixes KiB, MiB, GiB)")
	fs.IntVar(&c.limits.MaxUploadFiles, "max-upload-files", api.DefaultLimits.MaxUploadFiles, "most entries an uploaded tree may hold")
	fs.IntVar(&c.limits.MaxUploadApps, "max-upload-apps", api.DefaultLimits.MaxUploadApps, "most apps an uploaded tree may hold")
	fs.IntVar(&c.limits.MaxUploadSources, "max-upload-sources", api.DefaultLimits.MaxUploadSources, "most sources keys an uploaded tree may hold")
	fs.IntVar(&c.limits.MaxUploadValues, "max-upload-values", api.DefaultLimits.MaxUploadValues, "most YAML values an uploaded tree may parse to")
	fs.Var(&intSizeValue{&c.limits.MaxUploadDocumentBytes}, "max-upload-document-bytes", "largest file of an uploaded tree (a larger one is a load-error finding; suffixes KiB, MiB)")
	fs.IntVar(&c.limits.ValidationWorkers, "validation-workers", api.DefaultLimits.ValidationWorkers, "apps one validation checks at once")
	fs.DurationVar(&c.limits.RequestTimeout, "request-timeout", api.DefaultLimits.RequestTimeout, "longest a request may work")
	fs.IntVar(&c.limits.MaxConcurrentValidations, "max-validations", api.DefaultLimits.MaxConcurrentValidations, "most POST /validate runs at once")
	fs.IntVar(&c.limits.MaxConcurrentOps, "max-ops", api.DefaultLimits.MaxConcurrentOps, "most POST /resolve, /merge and /policy/evaluate runs at once, together")
	fs.IntVar(&c.limits.MaxWaiters, "max-waiters", api.DefaultLimits.MaxWaiters, "most requests waiting for a change (?wait) and GET /events streams at once")
	fs.IntVar(&c.limits.MaxWaitersPerClient, "max-waiters-per-client", 0, "most waiter slots one remote address may hold (0: a quarter of --max-waiters)")
	fs.DurationVar(&c.limits.MaxWait, "max-wait", api.DefaultLimits.MaxWait, "longest a request may wait for a change (?wait), and longest a GET /events stream lasts before the client reconnects")
	fs.Var(&intSizeValue{&c.limits.MaxGraphBytes}, "max-graph-bytes", "largest GET /graph answer; a larger graph is read page by page (suffixes KiB, MiB)")
	fs.Var(&keptBytesValue{&c.limits.MaxKeptRuleBytes}, "max-kept-rule-bytes", "rule parts kept for the datasets read (88 bytes each, their shared members apart), so that a dataset read again is not merged and encoded again; past it the least read are forgotten; 0 keeps none (suffixes KiB, MiB, GiB)")
	fs.Var(&sizeValue{&c.limits.MaxWorkMemory}, "max-work-memory", "working memory the expensive requests (POST /validate, /diff, /resolve, /merge, /policy/evaluate) may hold together (suffixes KiB, MiB, GiB)")
	fs.DurationVar(&c.debounce, "reload-debounce", 250*time.Millisecond, "quiet period after a file change before reloading")
	fs.DurationVar(&c.rescan, "rescan-interval", time.Minute, "how often every input is read again, to catch what file events missed (0 disables)")
	fs.DurationVar(&c.reloadTimeout, "reload-timeout", 5*time.Minute, "longest a reload may take before it is abandoned (the last good revision keeps serving)")
	fs.BoolVar(&c.isolateApps, "isolate-apps", false, "when a reload's errors are in some apps' own files, hold those apps at their last good version and serve the rest (default: reject the reload)")
	fs.StringVar(&c.stateDir, "state-dir", "", "a directory to keep every served revision's inputs in; a server starting on a tree it must reject serves the newest one kept there")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "grace period for requests in flight on SIGTERM")
	fs.DurationVar(&c.readHeader, "read-header-timeout", 10*time.Second, "longest a client may take to send request headers")
	fs.IntVar(&c.maxConns, "max-connections", 0, "most connections open at once, the last 32 kept for probes and metrics (0: from the open-file limit, at most 4096)")
	fs.StringVar(&c.debugAddr, "debug-addr", "", "an address serving Go's profiler at /debug/pprof/ (off when empty; bind it to loopback)")
	fs.StringVar(&sf.authTokenFile, "auth-token-file", "", "a file of bearer tokens (one per line) every POST and GET /metrics then require")
}

// sizeValue is a byte count flag: 1048576, 512KiB, 32MiB, 1GiB.
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v sizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = n
	return nil
}

func (v sizeValue) Type() string { return "size" }

// keptBytesValue is sizeValue for --max-kept-rule-bytes, where 0 keeps
// no rule part (api.NoKeptRuleParts).
type keptBytesValue struct{ p *int64 }

func (v keptBytesValue) String() string {
	switch {
	case v.p == nil:
		return ""
	case *v.p == api.NoKeptRuleParts:
		return "0"
	}
	return strconv.FormatInt(*v.p, 10)
}

func (v keptBytesValue) Set(s string) error {
	if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n == 0 {
		*v.p = api.NoKeptRuleParts
		return nil
	}
	return sizeValue(v).Set(s)
}

func (v keptBytesValue) Type() string { return "size" }

// intSizeValue is sizeValue for an int.
type intSizeValue struct{ p *int }

func (v intSizeValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v intSizeValue) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*v.p = int(n)
	return nil
}

func (v intSizeValue) Type() string { return "size" }

// parseSize reads a byte count: 1048576, 512KiB, 32MiB, 1GiB.
func parseSize(s string) (int64, error) {
	num, mult := s, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = rest, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive size such as 1048576 or 32MiB", s)
	}
	return n * mult, nil
}

// config checks the flags (after the environment was read into them) and
// makes the configuration serve runs with.
func (sf *serveFlags) config(fs *pflag.FlagSet, getenv func(string) string) (*serveConfig, error) {
	c := sf.c
	cfg, err := sf.check.Config(&cli.Env{Getenv: getenv})
	if err != nil {
		return nil, err
	}
	c.notes = cfg.Notes
	if c.inputs, err = checkInputs(c.inputs.Trees, cfg, ""); err != nil {
		if errors.Is(err, errNothingDiscovered) {
			// The library would serve the empty configuration; a server
			// that starts on nothing serves an empty catalogue and says
			// nothing (seed 001's renamed governance/ directory).
			return nil, &cli.ExitError{Code: 1, Err: fmt.Errorf("serve --discover: %w (%s); not starting on nothing", err, strings.Join(cfg.Notes, "; "))}
		}
		return nil, err
	}
	c.inputs.AllowOutsideLinks = sf.c.inputs.AllowOutsideLinks
	switch c.logFormat {
	case "json", "console":
	default:
		return nil, cli.Usagef("--log-format must be json or console, not %q", c.logFormat)
	}
	lvl, err := zerolog.ParseLevel(strings.ToLower(sf.logLevel))
	if err != nil || sf.logLevel == "" {
		return nil, cli.Usagef("--log-level must be debug, info, warn or error, not %q", sf.logLevel)
	}
	c.logLevel = lvl
	l := c.limits
	if l.MaxUploadFiles <= 0 || l.MaxConcurrentValidations <= 0 || l.MaxConcurrentOps <= 0 || l.RequestTimeout <= 0 || l.MaxWaiters <= 0 || l.MaxWait <= 0 {
		return nil, cli.Usagef("--max-upload-files, --max-validations, --max-ops, --max-waiters, --max-wait and --request-timeout must be positive")
	}
	if l.MaxWaitersPerClient < 0 || l.MaxWaitersPerClient > l.MaxWaiters {
		return nil, cli.Usagef("--max-waiters-per-client must be from 0 (a quarter of --max-waiters) to --max-waiters (%d)", l.MaxWaiters)
	}
	if c.debounce <= 0 || c.rescan < 0 || c.readHeader <= 0 || c.reloadTimeout <= 0 {
		return nil, cli.Usagef("--reload-debounce, --reload-timeout and --read-header-timeout must be positive, --rescan-interval not negative")
	}
	if c.maxConns, err = connectionCap(c.maxConns, openFileLimit()); err != nil {
		return nil, err
	}
	if c.auth, err = loadAuth(sf.authTokenFile, getenv); err != nil {
		return nil, cli.Usagef("%v", err)
	}
	return &c, nil
}

// The connection cap (--max-connections) keeps a crowd of idle connections
// from taking every file descriptor: past the limit accept fails and even
// the probes go unanswered.
const (
	// fdsKept are the descriptors the cap leaves for the process's own
	// files (a reload reads the tree, the watcher, the log): an eighth of
	// the limit, at least this many.
	fdsKept = 64
	// maxDefaultConns bounds the default cap: a connection costs a
	// goroutine and its buffers, tens of kilobytes held while it is open.
	maxDefaultConns = 4096
	// probeConns are the connections of the cap kept for the probes and
	// the metrics.
	probeConns = 32
)

// connectionCap is --max-connections checked against the open-file limit
// (0: unknown), or its default when not given.
func connectionCap(given int, fdLimit uint64) (int, error) {
	room := 0 // the most the limit allows; 0 for no known bound
	if fdLimit > 0 {
		room = int(min(fdLimit-min(fdLimit, max(fdLimit/8, fdsKept)), 1<<30))
	}
	switch {
	case given < 0:
		return 0, cli.Usagef("--max-connections must not be negative")
	case given > 0 && room > 0 && given > room:
		return 0, cli.Usagef("--max-connections %d leaves too few of the process's %d open files for its own (at most %d)", given, fdLimit, room)
	case given > 0:
		return given, nil
	case room == 0:
		return maxDefaultConns, nil
	}
	if room < 2*probeConns {
		return 0, cli.Usagef("the open-file limit (%d) leaves too few connections to serve; raise it (ulimit -n)", fdLimit)
	}
	return min(room, maxDefaultConns), nil
}

// newServeCmd is `governanced serve`; run with no command at all, the root
// does the same with its defaults.
func newServeCmd(getenv func(string) string) *cobra.Command {
	sf := &serveFlags{}
	c := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Serve governance trees over HTTP (the default command)",
		Long: `Serve governance trees over HTTP (the contract is openapi.yaml, also served
at GET /openapi.yaml: every route). Every flag also reads the environment
variable GOVERNANCED_<FLAG> (upper snake case, e.g. GOVERNANCED_ADDR); the
flag wins. Repeatable flags read a list separated by ":". With no --tree the
server serves a demo tree built into the binary. Authentication is off unless
--auth-token-file or GOVERNANCED_AUTH_TOKEN (a token itself) is set.`,
		Example: `  governanced serve
  governanced serve --tree ./celine-pipelines --owners ./owners.yaml
  GOVERNANCED_TREE=/srv/governance governanced serve --addr :8080`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cli.BindEnv(cmd.Flags(), getenv); err != nil {
				return err
			}
			c, err := sf.config(cmd.Flags(), getenv)
			if err != nil {
				return err
			}
			return runServe(cmd.Context(), c, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addServeFlags(c.Flags(), sf)
	return c
}

func newLogger(c *serveConfig, w io.Writer) zerolog.Logger {
	if c.logFormat == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339}
	}
	return zerolog.New(w).Level(c.logLevel).With().Timestamp().Logger()
}

// runServe serves until ctx ends or the server fails, in named steps: the
// server over a store of the trees (newServer), its listener (listen), the
// first load (firstLoad), the keeping of what is served (keep), the
// watcher (watch), and the shutdown.
func runServe(ctx context.Context, c *serveConfig, stdout, stderr io.Writer) error {
	logOut, flushLog := bufferLog(stderr)
	defer flushLog()
	s := &running{c: c, log: newLogger(c, logOut)}
	for _, n := range c.notes {
		s.log.Info().Msg(n)
	}
	// SIGHUP is caught from the start: its default action would end the
	// process, and an operator may send it while a large tree still loads.
	// The watcher reads it: signals that arrive while a reload runs
	// coalesce into one.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	// Long-lived answers (?wait, /events) end when shutdown begins: a
	// graceful shutdown waits for every request.
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()

	s.newServer(streams)
	if c.debugAddr != "" {
		stopDebug, err := serveDebug(c.debugAddr, s.log)
		if err != nil {
			return &cli.ExitError{Code: 1, Err: fmt.Errorf("serve: --debug-addr: %w", err)}
		}
		defer stopDebug()
	}
	served, err := s.listen(endStreams)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("serve: %w", err)}
	}
	// The listener is up before the first load so liveness probes pass while
	// a large tree loads; /readyz says 503 until it is served.
	if err := s.firstLoad(ctx); err != nil {
		s.shutdown()
		var rej *snapshot.Rejection
		if errors.As(err, &rej) {
			flushLog() // the log lines before the report, as they happened
			fmt.Fprintln(stderr, "governanced: the tree failed its check; nothing is served. The report:")
			_ = rej.Report.WriteText(stderr)
		}
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("serve: %w", err)}
	}
	stopKeeping := s.keep()
	wctx, stopWatch := context.WithCancel(ctx)
	watched := s.watch(wctx, hup)

	var serveErr error
	select {
	case <-ctx.Done():
		s.log.Info().Msg("shutting down")
	case serveErr = <-served:
	}
	stopWatch()
	s.shutdown()
	// A reload in progress sees its context end and stops between units;
	// whatever it is doing, the process ends within the shutdown timeout.
	select {
	case <-watched:
	case <-time.After(c.shutdownTimeout):
		s.log.Warn().Msg("shutdown: a reload did not stop in time; exiting anyway")
	}
	// The revision served last is kept before the process ends.
	stopKeeping()
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("serve: %w", serveErr)}
	}
	return nil
}

// running is what the steps of a running serve share.
type running struct {
	c      *serveConfig
	log    zerolog.Logger
	demo   bool // no tree given: the demo tree built into the binary
	store  *snapshot.Store
	kept   *keeper // the state directory's (--state-dir); nil without one
	tokens *api.Tokens
	conns  *api.ConnLimit
	srv    *http.Server
}

// newServer makes the store of the trees to serve (the demo tree when none
// is given) and the HTTP server answering from it, with its tokens, its
// connection cap and its timeouts.
func (s *running) newServer(streams context.Context) {
	c := s.c
	loader := &snapshot.Loader{Inputs: c.inputs}
	s.demo = len(c.inputs.Trees) == 0 && c.inputs.Base == ""
	if s.demo {
		if len(c.inputs.Owners) > 0 || c.inputs.OverlayDir != "" || c.inputs.Placeholders != "" {
			s.log.Warn().Msg("no --tree given: serving the demo tree and ignoring --owners, --overlay-dir and --placeholders")
		}
		loader = &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{"."}, Owners: []string{demo.OwnersFile}}, FS: demo.FS()}
		s.log.Info().Msg("no --tree given: serving the demo tree built into the binary")
	}
	s.store = snapshot.NewStoreWith(loader, snapshot.StoreOptions{Workers: 1, Run: runNiced, IsolateApps: c.isolateApps})
	if c.stateDir != "" {
		s.kept = openKeeper(c.stateDir, loader.Inputs, s.log)
	}
	logAuth(s.log, c.auth)
	s.tokens = api.NewTokens(c.auth.tokens)
	s.conns = api.NewConnLimit(c.maxConns, probeConns)
	s.log.Info().Int("max_connections", s.conns.Max()).Int("kept_for_probes", s.conns.Reserve()).Uint64("open_file_limit", openFileLimit()).
		Msg("connections capped: quiet ones are closed first near the cap")
	s.srv = &http.Server{
		Handler: api.NewServer(api.Deps{Store: s.store, Log: s.log, Limits: c.limits, Version: buildVersion(),
			Tokens: s.tokens, Streams: streams, Conns: s.conns}),
		ReadHeaderTimeout: c.readHeader,
		// The body of an upload arrives within the request's time; the answer
		// gets a little longer than the handler's own timeout to be written.
		ReadTimeout:  c.limits.RequestTimeout,
		WriteTimeout: c.limits.RequestTimeout + 5*time.Second,
		IdleTimeout:  2 * time.Minute,
		// net/http's own complaints (a TLS probe, a client hanging up) as JSON
		// lines like every other, not bare text in between.
		ErrorLog:    stdlog.New(s.log.With().Str("component", "net/http").Logger(), "", 0),
		ConnState:   s.conns.ConnState,
		ConnContext: s.conns.ConnContext,
	}
}

// listen starts serving on --addr; served says why serving ended. A
// request net/http refuses before any handler runs (a bad escape in the
// path, headers too large) gets net/http's own plain-text answer.
func (s *running) listen(onShutdown func()) (served <-chan error, err error) {
	ln, err := net.Listen("tcp", s.c.addr)
	if err != nil {
		return nil, err
	}
	s.srv.RegisterOnShutdown(onShutdown)
	done := make(chan error, 1)
	go func() { done <- s.srv.Serve(s.conns.Listener(ln)) }()
	s.log.Info().Str("addr", ln.Addr().String()).Str("version", buildVersion()).Msg("listening")
	if onListen != nil {
		onListen(ln.Addr())
	}
	return done, nil
}

// shutdown stops the server, letting requests in flight finish within
// --shutdown-timeout.
func (s *running) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), s.c.shutdownTimeout)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.log.Warn().Err(err).Msg("shutdown: requests still in flight were cut off")
	}
}

// reload reloads the store on a trigger, bounded in time (--reload-timeout):
// past its bound it fails, the last good revision keeps serving, and the
// next trigger tries again. What is served after it is offered to the
// state directory.
func (s *running) reload(ctx context.Context, t watch.Trigger) *snapshot.ReloadStatus {
	rctx, cancel := context.WithTimeout(ctx, s.c.reloadTimeout)
	defer cancel()
	var st *snapshot.ReloadStatus
	if t.Rescan {
		st = s.store.Rescan(rctx)
	} else {
		st = s.store.Reload(rctx, t.Force)
	}
	logReload(s.log, st, t)
	s.kept.offer(s.store.Serving())
	return st
}

// firstLoad loads the trees at start-up. A tree that cannot be served
// as its files say serves the newest revision the state directory keeps,
// when there is one (--state-dir). Else a tree that is not there yet
// (before git-sync's first clone) is waited for: the watcher sees it
// appear, and /readyz answers 503 meanwhile, instead of the process
// restarting until it lands. Any other failure ends serve.
func (s *running) firstLoad(ctx context.Context) error {
	first := s.reload(ctx, watch.Trigger{Reason: "start-up", Force: true})
	if s.kept != nil && !servesItsFiles(first) && ctx.Err() == nil && s.kept.restore(ctx, s.store, first.Err) && s.c.isolateApps {
		// The apps that fail are held at their builds from there.
		first = s.reload(ctx, watch.Trigger{Reason: "restored", Force: true})
	}
	var missing *snapshot.MissingRootError
	switch {
	case s.store.Current() != nil:
		return nil
	case errors.As(first.Err, &missing) && ctx.Err() == nil:
		s.log.Warn().Str("tree", missing.Root).Msg("waiting for the tree to appear; /readyz answers 503 until it is served")
		return nil
	}
	return first.Err // a rejection is a *snapshot.Rejection
}

// keep keeps what is served in the state directory from now on
// (--state-dir), off the reloads' path; the function it returns keeps the
// last revision offered, within --shutdown-timeout, and returns.
func (s *running) keep() (stop func()) {
	if s.kept == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go s.kept.run(ctx, s.c.shutdownTimeout)
	return func() {
		cancel()
		s.kept.wait()
	}
}

// watch reloads the store on every change of the inputs (and the token
// file on a change of its own) until ctx ends, then closes the channel it
// returns.
func (s *running) watch(ctx context.Context, hup <-chan os.Signal) <-chan struct{} {
	c := s.c
	var tf *tokenFile
	if c.auth.file != "" {
		tf = &tokenFile{path: c.auth.file, accepted: c.auth.data}
	}
	cfg := watch.Config{Debounce: c.debounce, Signals: hup,
		Retry: func() bool {
			st := s.store.LastReload()
			return st != nil && errors.Is(st.Err, snapshot.ErrInputsChanged)
		},
		OnError: func(err error) {
			s.log.Warn().Err(err).Msg("file watching: the periodic rescan still covers this")
		},
		Watching: func() {
			s.log.Debug().Msg("watching the inputs")
			// The token file may have changed between its first read and
			// now, when no event could see it: read it once more. Nothing
			// else runs on this goroutine yet, and an unchanged file costs
			// one read.
			tf.reload(s.log, s.tokens)
		},
		// Why an edit did not reload, for an operator at --log-level debug.
		Ignored: func(path string) { s.log.Debug().Str("path", path).Msg("file event ignored: not an input") }}
	if s.demo {
		// The demo tree is the binary's; the token file is watched all
		// the same.
		cfg.Targets = watchTargets(snapshot.Inputs{}, c.auth.file)
	} else {
		cfg.Targets = watchTargets(c.inputs, c.auth.file)
		cfg.Rescan = c.rescan
	}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		err := watch.Run(ctx, cfg, func(t watch.Trigger) {
			if t.Has(tagAuth) {
				tf.reload(s.log, s.tokens)
			}
			// A retry (the inputs changed under the last reload) names no
			// target: it is the inputs'.
			if t.Has(tagInputs) || t.Force || t.Reason == "retry" {
				s.reload(ctx, t)
			}
		})
		if err != nil {
			s.log.Error().Err(err).Msg("file watching is off; reload with SIGHUP or rely on the rescan")
		}
	}()
	return watched
}

// The tags of watched targets: the governance inputs, and the token file.
const (
	tagInputs = "inputs"
	tagAuth   = "auth"
)

// watchTargets are what serve watches: each tree (its governance files and
// app directories), the overlay directory's overlays, the owners files, the
// placeholder map, and the token file. Nothing else beside them (a log
// file, an editor's swap file) causes a reload.
func watchTargets(in snapshot.Inputs, tokenFile string) []watch.Target {
	abs := func(p string) string {
		if filepath.IsAbs(p) || in.Dir == "" {
			return p
		}
		return filepath.Join(in.Dir, p)
	}
	var out []watch.Target
	for _, t := range in.Trees {
		out = append(out, watch.Target{Path: abs(t), Kind: watch.Tree, Match: snapshot.IsGovernanceName, Tag: tagInputs})
	}
	if in.Base != "" {
		out = append(out, watch.Target{Path: abs(in.Base), Kind: watch.File, Tag: tagInputs})
	}
	if in.OverlayDir != "" {
		out = append(out, watch.Target{Path: abs(in.OverlayDir), Kind: watch.Dir, Match: snapshot.IsGovernanceName, Tag: tagInputs})
	}
	for _, f := range in.Owners {
		out = append(out, watch.Target{Path: abs(f), Kind: watch.File, Tag: tagInputs})
	}
	if in.Placeholders != "" {
		out = append(out, watch.Target{Path: abs(in.Placeholders), Kind: watch.File, Tag: tagInputs})
	}
	if tokenFile != "" {
		out = append(out, watch.Target{Path: tokenFile, Kind: watch.File, Tag: tagAuth})
	}
	return out
}

// logReload says what a reload did: what triggered it, what it examined and,
// when it was refused, which files and why.
func logReload(log zerolog.Logger, st *snapshot.ReloadStatus, t watch.Trigger) {
	var ev *zerolog.Event
	switch st.Outcome {
	case snapshot.Activated:
		ev = log.Info()
	case snapshot.Unchanged:
		ev = log.Debug()
	case snapshot.Held:
		ev = log.Warn()
	default:
		ev = log.Error()
	}
	ev = ev.Str("trigger", t.Reason).Str("outcome", st.Outcome.String()).
		Str("revision", st.Revision).Str("previous", st.Previous).
		Float64("duration_ms", float64(st.Duration.Microseconds())/1000)
	if len(t.Paths) > 0 {
		ev = ev.Strs("paths", t.Paths)
	}
	if st.UnitsReused+st.UnitsBuilt > 0 {
		ev = ev.Int("units_reused", st.UnitsReused).Int("units_built", st.UnitsBuilt)
		if st.UnitsResolved > 0 {
			ev = ev.Int("units_resolved", st.UnitsResolved)
		}
	}
	if st.Err != nil {
		ev = ev.Err(st.Err)
	}
	if st.Rejected != nil {
		ev = ev.Strs("problems", st.Rejected.Problems)
		if st.Rejected.NotHeld != "" {
			ev = ev.Str("not_held", st.Rejected.NotHeld)
		}
	}
	if len(st.Held) > 0 {
		apps := make([]string, len(st.Held))
		for i, h := range st.Held {
			apps[i] = h.App
		}
		ev = ev.Strs("held", apps)
	}
	serving := "the previous revision keeps serving"
	if st.Previous == "" {
		serving = "nothing is served yet"
	}
	switch st.Outcome {
	case snapshot.Activated:
		ev.Msg("snapshot activated")
	case snapshot.Unchanged:
		ev.Msg("inputs unchanged")
	case snapshot.Rejected:
		ev.Msg("reload rejected by the tree check; " + serving)
	case snapshot.Held:
		ev.Msg("apps whose files fail the tree check are held at their last good version (or left out); the rest is served")
	default:
		ev.Msg("reload failed; " + serving)
	}
}

// serveDebug serves Go's profiler on its own listener, so that profiling a
// server under load (docs/performance.md) needs no rebuild, and the public
// address never exposes it.
func serveDebug(addr string, log zerolog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	log.Warn().Str("addr", ln.Addr().String()).Msg("profiler endpoints served at /debug/pprof/: keep this address private")
	return func() { _ = srv.Close() }, nil
}
