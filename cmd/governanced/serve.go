package main

import (
	"context"
	"errors"
	"flag"
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

	"github.com/celine-eu/governanced/api"
	"github.com/celine-eu/governanced/internal/demo"
	"github.com/celine-eu/governanced/internal/snapshot"
	"github.com/celine-eu/governanced/internal/watch"
)

const serveUsage = `usage: governanced serve [--tree DIR]... [--overlay-name NAME] [--overlay-dir DIR]
                        [--owners FILE]... [--placeholders FILE] [--addr HOST:PORT]
                        [--log-format json|console] [--log-level LEVEL]
                        [--auth-token-file FILE] [limits...]

Serves governance trees over HTTP (http-api.md). Every flag also reads the
environment variable GOVERNANCED_<FLAG> (upper snake case, e.g. GOVERNANCED_ADDR);
the flag wins. Repeatable flags read a list separated by %q. With no --tree the
server serves a demo tree built into the binary. Authentication is off unless
--auth-token-file or GOVERNANCED_AUTH_TOKEN (a token itself) is set.

flags:
`

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
	readHeader      time.Duration
	auth            authConfig
	debugAddr       string
}

// envFlags defines flags whose defaults come from GOVERNANCED_* variables, so
// that a flag on the command line wins over the environment.
type envFlags struct {
	fs     *flag.FlagSet
	getenv func(string) string
	errs   []error
}

func envName(flagName string) string {
	return "GOVERNANCED_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (e *envFlags) env(name string) (string, bool) {
	v := e.getenv(envName(name))
	return v, v != ""
}

func (e *envFlags) string(p *string, name, def, usage string) {
	if v, ok := e.env(name); ok {
		def = v
	}
	e.fs.StringVar(p, name, def, usage+" ($"+envName(name)+")")
}

func (e *envFlags) list(p *[]string, name, usage string) {
	l := &listFlag{values: p}
	if v, ok := e.env(name); ok {
		*p = filepath.SplitList(v)
		l.fromEnv = true
	}
	e.fs.Var(l, name, usage+" (repeatable; $"+envName(name)+")")
}

func (e *envFlags) duration(p *time.Duration, name string, def time.Duration, usage string) {
	if v, ok := e.env(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s=%q: not a duration such as 30s or 1m", envName(name), v))
		} else {
			def = d
		}
	}
	e.fs.DurationVar(p, name, def, usage+" ($"+envName(name)+")")
}

func (e *envFlags) size(p *int64, name string, def int64, usage string) {
	*p = def
	if v, ok := e.env(name); ok {
		n, err := parseSize(v)
		if err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s: %v", envName(name), err))
		} else {
			*p = n
		}
	}
	e.fs.Func(name, fmt.Sprintf("%s (default %d; suffixes KiB, MiB, GiB; $%s)", usage, def, envName(name)), func(s string) error {
		n, err := parseSize(s)
		*p = n
		return err
	})
}

func (e *envFlags) int(p *int, name string, def int, usage string) {
	if v, ok := e.env(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			e.errs = append(e.errs, fmt.Errorf("%s=%q: not a non-negative integer", envName(name), v))
		} else {
			def = n
		}
	}
	e.fs.IntVar(p, name, def, usage+" ($"+envName(name)+")")
}

// listFlag is a repeatable flag; given on the command line it replaces the
// list the environment supplied instead of adding to it.
type listFlag struct {
	values  *[]string
	fromEnv bool
}

func (l *listFlag) String() string {
	if l.values == nil {
		return ""
	}
	return strings.Join(*l.values, ",")
}

func (l *listFlag) Set(v string) error {
	if l.fromEnv {
		*l.values, l.fromEnv = nil, false
	}
	*l.values = append(*l.values, v)
	return nil
}

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

func parseServeArgs(args []string, getenv func(string) string, stderr io.Writer) (*serveConfig, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, serveUsage, string(filepath.ListSeparator))
		fs.PrintDefaults()
	}
	e := &envFlags{fs: fs, getenv: getenv}
	c := &serveConfig{}
	var logLevel string
	limits := api.DefaultLimits
	e.list(&c.inputs.Trees, "tree", "a tree root: a directory holding apps/<app>/governance.yaml, or one governance.yaml")
	// GOVERNANCE_OVERLAY_NAME keeps its library meaning: the overlay name when
	// none is configured for governanced itself.
	e.string(&c.inputs.OverlayName, "overlay-name", getenv("GOVERNANCE_OVERLAY_NAME"), "the overlay name to look for beside each base, instead of the app name")
	e.string(&c.inputs.OverlayDir, "overlay-dir", "", "a directory of deployer overlays, paired with bases by app name")
	e.list(&c.inputs.Owners, "owners", "an owners registry file; later files shadow earlier ones")
	e.string(&c.inputs.Placeholders, "placeholders", "", "the deployment's placeholder map (ownership name → owner id)")
	e.string(&c.addr, "addr", ":8080", "the address to listen on")
	e.string(&c.logFormat, "log-format", "json", "log format: json or console")
	e.string(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	e.size(&limits.MaxBodyBytes, "max-body-bytes", api.DefaultLimits.MaxBodyBytes, "largest POST body accepted")
	e.size(&limits.MaxUploadBytes, "max-upload-bytes", api.DefaultLimits.MaxUploadBytes, "most bytes an uploaded tree may extract to")
	e.int(&limits.MaxUploadFiles, "max-upload-files", api.DefaultLimits.MaxUploadFiles, "most entries an uploaded tree may hold")
	e.duration(&limits.RequestTimeout, "request-timeout", api.DefaultLimits.RequestTimeout, "longest a request may work")
	e.int(&limits.MaxConcurrentValidations, "max-validations", api.DefaultLimits.MaxConcurrentValidations, "most POST /validate runs at once")
	e.int(&limits.MaxConcurrentOps, "max-ops", api.DefaultLimits.MaxConcurrentOps, "most POST /resolve, /merge and /policy/evaluate runs at once, together")
	e.duration(&c.debounce, "reload-debounce", 250*time.Millisecond, "quiet period after a file change before reloading")
	e.duration(&c.rescan, "rescan-interval", time.Minute, "reload check interval when file events are missed (0 disables)")
	e.duration(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "grace period for requests in flight on SIGTERM")
	e.duration(&c.readHeader, "read-header-timeout", 10*time.Second, "longest a client may take to send request headers")
	e.string(&c.debugAddr, "debug-addr", "", "an address serving Go's profiler at /debug/pprof/ (off when empty; bind it to loopback)")
	var authTokenFile string
	e.string(&authTokenFile, "auth-token-file", "", "a file of bearer tokens (one per line) every POST and GET /metrics then require")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, &usageError{msg: "serve: " + err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, &usageError{msg: fmt.Sprintf("serve: unexpected argument %q (trees are named with --tree)", fs.Arg(0))}
	}
	if len(e.errs) > 0 {
		return nil, &usageError{msg: "serve: " + errors.Join(e.errs...).Error()}
	}
	switch c.logFormat {
	case "json", "console":
	default:
		return nil, &usageError{msg: fmt.Sprintf("serve: --log-format must be json or console, not %q", c.logFormat)}
	}
	lvl, err := zerolog.ParseLevel(strings.ToLower(logLevel))
	if err != nil || logLevel == "" {
		return nil, &usageError{msg: fmt.Sprintf("serve: --log-level must be debug, info, warn or error, not %q", logLevel)}
	}
	c.logLevel = lvl
	if limits.MaxUploadFiles <= 0 || limits.MaxConcurrentValidations <= 0 || limits.MaxConcurrentOps <= 0 || limits.RequestTimeout <= 0 {
		return nil, &usageError{msg: "serve: --max-upload-files, --max-validations, --max-ops and --request-timeout must be positive"}
	}
	if c.debounce <= 0 || c.rescan < 0 || c.readHeader <= 0 {
		return nil, &usageError{msg: "serve: --reload-debounce and --read-header-timeout must be positive, --rescan-interval not negative"}
	}
	c.limits = limits
	if c.auth, err = loadAuth(authTokenFile, getenv); err != nil {
		return nil, &usageError{msg: "serve: " + err.Error()}
	}
	return c, nil
}

func newLogger(c *serveConfig, w io.Writer) zerolog.Logger {
	if c.logFormat == "console" {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339}
	}
	return zerolog.New(w).Level(c.logLevel).With().Timestamp().Logger()
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := parseServeArgs(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logOut, flushLog := bufferLog(stderr)
	defer flushLog()
	log := newLogger(c, logOut)

	loader := &snapshot.Loader{Inputs: c.inputs}
	demoMode := len(c.inputs.Trees) == 0
	if demoMode {
		if len(c.inputs.Owners) > 0 || c.inputs.OverlayDir != "" || c.inputs.Placeholders != "" {
			log.Warn().Msg("no --tree given: serving the demo tree and ignoring --owners, --overlay-dir and --placeholders")
		}
		loader = &snapshot.Loader{Inputs: snapshot.Inputs{Trees: []string{"."}, Owners: []string{demo.OwnersFile}}, FS: demo.FS()}
		log.Info().Msg("no --tree given: serving the demo tree built into the binary")
	}

	// SIGHUP is caught from the start: its default action would end the
	// process, and an operator may send it while a large tree still loads.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGHUP)
	defer signal.Stop(signals)

	store := snapshot.NewStoreWith(loader, snapshot.StoreOptions{Workers: 1, Run: runNiced})
	logAuth(log, c.auth)
	tokens := api.NewTokens(c.auth.tokens)
	handler := api.NewServer(api.Deps{Store: store, Log: log, Limits: c.limits, Version: version, Tokens: tokens})

	// SIGHUP re-reads the token file, then reloads the tree (the watcher
	// reads hup). Signals that arrive while a reload runs coalesce into one.
	hup := make(chan os.Signal, 1)
	hupCtx, stopHup := context.WithCancel(ctx)
	defer stopHup()
	go func() {
		for {
			select {
			case <-hupCtx.Done():
				return
			case sig := <-signals:
				reloadAuth(log, c.auth, tokens)
				select {
				case hup <- sig:
				default:
				}
			}
		}
	}()
	if c.debugAddr != "" {
		stopDebug, err := serveDebug(c.debugAddr, log)
		if err != nil {
			return &exitError{code: 1, err: fmt.Errorf("serve: --debug-addr: %w", err)}
		}
		defer stopDebug()
	}
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("serve: %w", err)}
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: c.readHeader,
		// The body of an upload arrives within the request's time; the answer
		// gets a little longer than the handler's own timeout to be written.
		ReadTimeout:  c.limits.RequestTimeout,
		WriteTimeout: c.limits.RequestTimeout + 5*time.Second,
		IdleTimeout:  2 * time.Minute,
		// net/http's own complaints (a TLS probe, a client hanging up) as JSON
		// lines like every other, not bare text in between.
		ErrorLog: stdlog.New(log.With().Str("component", "net/http").Logger(), "", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info().Str("addr", ln.Addr().String()).Str("version", version).Msg("listening")
	if onListen != nil {
		onListen(ln.Addr())
	}
	shutdown := func() {
		sctx, cancel := context.WithTimeout(context.Background(), c.shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn().Err(err).Msg("shutdown: requests still in flight were cut off")
		}
	}

	// The listener is up before the first load so liveness probes pass while
	// a large tree loads; /readyz says 503 until it is served.
	first := store.Reload(ctx, true)
	logReload(log, first, watch.Trigger{Reason: "start-up"})
	if first.Outcome != snapshot.Activated {
		shutdown()
		if first.Rejected != nil {
			flushLog() // the log lines before the report, as they happened
			fmt.Fprintln(stderr, "governanced: the tree failed its check; nothing is served. The report:")
			_ = first.Rejected.Report.WriteText(stderr)
		}
		return &exitError{code: 1, err: fmt.Errorf("serve: %w", first.Err)}
	}

	wctx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		cfg := watch.Config{Debounce: c.debounce, Signals: hup, OnError: func(err error) {
			log.Warn().Err(err).Msg("file watching: the periodic rescan still covers this")
		}}
		if !demoMode {
			cfg.Recursive, cfg.Flat = c.inputs.WatchDirs()
			cfg.Rescan = c.rescan
		}
		err := watch.Run(wctx, cfg, func(t watch.Trigger) {
			logReload(log, store.Reload(wctx, t.Force), t)
		})
		if err != nil {
			log.Error().Err(err).Msg("file watching is off; reload with SIGHUP or rely on the rescan")
		}
	}()

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info().Msg("shutting down")
	case serveErr = <-served:
	}
	stopWatch()
	shutdown()
	<-watched
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return &exitError{code: 1, err: fmt.Errorf("serve: %w", serveErr)}
	}
	return nil
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
	default:
		ev = log.Error()
	}
	ev = ev.Str("trigger", t.Reason).Str("outcome", st.Outcome.String()).
		Str("revision", st.Revision).Str("previous", st.Previous).Dur("duration", st.Duration)
	if len(t.Paths) > 0 {
		ev = ev.Strs("paths", t.Paths)
	}
	if st.UnitsReused+st.UnitsBuilt > 0 {
		ev = ev.Int("units_reused", st.UnitsReused).Int("units_built", st.UnitsBuilt)
	}
	if st.Err != nil {
		ev = ev.Err(st.Err)
	}
	if st.Rejected != nil {
		ev = ev.Strs("problems", st.Rejected.Problems)
	}
	switch st.Outcome {
	case snapshot.Activated:
		ev.Msg("snapshot activated")
	case snapshot.Unchanged:
		ev.Msg("inputs unchanged")
	case snapshot.Rejected:
		ev.Msg("reload rejected by the tree check; the previous revision keeps serving")
	default:
		ev.Msg("reload failed; the previous revision keeps serving")
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
