package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Working memory. What an expensive request holds grows with what it reads:
// a document parsed as YAML costs up to about 200 times its bytes (the
// reader's nodes, then the typed values), an uploaded tree its bytes held
// in memory plus what its check parses at once, a diff every unit it
// builds. Each of POST /validate, /diff, /resolve, /merge and
// /policy/evaluate charges its cost to one budget (Limits.MaxWorkMemory)
// before it spends it — its body as it arrives, an upload as it is
// extracted, the documents its check parses, the units a diff builds — and
// gives it all back when its work has really ended. A request whose cost
// alone would pass the budget is refused with 413 `payload-too-large`; one
// that finds the budget held by others, with 503 `overloaded` and
// Retry-After. The costs are estimates measured on the worst inputs
// (docs/reliability.md has them and the commands behind them), so the
// requests in progress hold at most about the budget, whatever they send.

// The costs of what a request reads, measured as the request's peak heap
// over what it read (docs/reliability.md has the figures and the command).
const (
	// bodyCost is a byte of a JSON request body as it is read: the
	// decoder's buffer (up to twice the body), the members it keeps as raw
	// text, and a document member as a string and then as bytes.
	bodyCost = 6
	// textCost and yamlValueCost estimate a document about to be parsed
	// as YAML (parseCost): each byte is held a few times over as text, and
	// each value costs a node of the YAML reader and the typed value built
	// from it (a flow list of one-digit numbers, two bytes a value, is the
	// worst case). jsonValueCost is a value decoded by encoding/json into
	// typed structures (a changeset, dbt artifacts).
	textCost      = 4
	yamlValueCost = 500
	jsonValueCost = 60
	// checkedSourceCost is a sources key of a unit a validation has
	// checked: what its report keeps of the unit (its datasets, its
	// offers, its findings).
	checkedSourceCost = 1000
	// keptSourceCost and keptValueCost are a sources key and a YAML value
	// of a unit a diff builds and keeps: its materialised rules and its
	// share of the report (a dataset changed, its rule as JSON).
	keptSourceCost = 2000
	keptValueCost  = 150
	// uploadCost is a byte of an uploaded tree, held in memory while it is
	// checked (io.ReadAll may leave a file's buffer twice its size).
	uploadCost = 2
)

// parseCost estimates what parsing text as YAML (or JSON, which is YAML)
// costs: its bytes at textCost, and yamlValueCost for each value it can
// hold. Every value but the first starts after one of , : [ { - or a line
// break, so counting those bounds the values from above, in one pass over
// the text and without parsing it.
func parseCost(text []byte) int64 {
	return int64(len(text))*textCost + values(text)*yamlValueCost
}

// decodeCost is parseCost for JSON decoded by encoding/json.
func decodeCost(text []byte) int64 {
	return int64(len(text))*textCost + values(text)*jsonValueCost
}

// values bounds the values text can hold (parseCost).
func values(text []byte) int64 {
	n := 1
	for _, sep := range []byte(",:[{-\n") {
		n += bytes.Count(text, []byte{sep})
	}
	return int64(n)
}

// overloadedRetryAfterSeconds is the Retry-After of a request refused
// because other requests hold the working memory: they end within the
// request timeout, most within seconds.
const overloadedRetryAfterSeconds = 2

// workMemory is the budget every expensive request charges.
//
// A request that finds the budget short while others hold it is refused,
// except the oldest request in progress, which waits for what it needs:
// requests that charge as they go (a check, unit by unit) would otherwise
// each hold a share and all fail short of the end, none finishing. While
// it waits no younger request takes memory; they fail at their next charge
// and give theirs back, so the oldest always finishes, or meets its
// deadline.
type workMemory struct {
	mu    sync.Mutex
	limit int64
	used  int64
	peak  int64 // the most used at once
	// freed is closed, and replaced, whenever memory is given back.
	freed chan struct{}
	// live are the requests in progress, by the order they started;
	// waiting is the oldest of them while it waits for memory, which no
	// younger one may then take.
	live    map[*account]uint64
	ticket  uint64
	waiting *account
	// refused counts the charges refused: over the whole budget, or
	// while others held it.
	refusedAlone, refusedBusy int64
}

func newWorkMemory(limit int64) *workMemory {
	return &workMemory{limit: limit, freed: make(chan struct{}), live: map[*account]uint64{}}
}

// state is the budget's state for the metrics.
func (m *workMemory) state() (used, peak, refusedAlone, refusedBusy int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used, m.peak, m.refusedAlone, m.refusedBusy
}

// inUse is what the requests in progress hold.
func (m *workMemory) inUse() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// oldest reports whether a is the request in progress that started first.
// Called with m.mu held.
func (m *workMemory) oldest(a *account) bool {
	mine := m.live[a]
	for _, t := range m.live {
		if t < mine {
			return false
		}
	}
	return true
}

// account is one request's charges against the budget. Safe for concurrent
// use: a check charges it from its workers.
type account struct {
	m    *workMemory
	ctx  context.Context // the request's: the oldest waits for memory until it ends
	held int64           // under m.mu
	what string          // what the request is, for the refusal: "this diff"
}

// newAccount opens the working-memory account of a request.
func (s *server) newAccount(ctx context.Context, what string) *account {
	a := &account{m: s.memory, ctx: ctx, what: what}
	m := s.memory
	m.mu.Lock()
	m.ticket++
	m.live[a] = m.ticket
	m.mu.Unlock()
	return a
}

// charge reserves n more bytes for the request: a *requestError, 413 when
// the request alone would hold more than the whole budget, 503 when others
// hold what it needs (the oldest request waits instead, until its context
// ends: then ctx's error).
func (a *account) charge(n int64) error {
	if n <= 0 {
		return nil
	}
	m := a.m
	for {
		m.mu.Lock()
		switch {
		case a.held+n > m.limit:
			m.refusedAlone++
			m.mu.Unlock()
			return &requestError{status: http.StatusRequestEntityTooLarge, kind: "payload-too-large",
				detail: fmt.Sprintf("%s would need more than the %s of working memory the server gives all requests together (--max-work-memory); send less at once", a.what, mib(m.limit))}
		case m.used+n <= m.limit && (m.waiting == nil || m.waiting == a):
			m.used += n
			m.peak = max(m.peak, m.used)
			a.held += n
			m.waiting = nil
			m.mu.Unlock()
			return nil
		case !m.oldest(a):
			m.refusedBusy++
			m.mu.Unlock()
			return &requestError{status: http.StatusServiceUnavailable, kind: "overloaded",
				detail: fmt.Sprintf("the requests in progress hold the server's working memory (%s, --max-work-memory); retry in %d seconds", mib(m.limit), overloadedRetryAfterSeconds),
				header: map[string]string{"Retry-After": strconv.Itoa(overloadedRetryAfterSeconds)}}
		}
		m.waiting = a
		freed := m.freed
		m.mu.Unlock()
		select {
		case <-freed:
		case <-a.ctx.Done():
			m.mu.Lock()
			if m.waiting == a {
				m.waiting = nil
			}
			m.mu.Unlock()
			return a.ctx.Err()
		}
	}
}

// chargeParse charges what parsing text as YAML costs (parseCost), before
// it is parsed.
func (a *account) chargeParse(text []byte) error { return a.charge(parseCost(text)) }

// chargeDecode charges what decoding JSON text costs (decodeCost).
func (a *account) chargeDecode(text []byte) error { return a.charge(decodeCost(text)) }

// unitCharge charges an account for each unit a check builds
// (check.Budget.Memory), at a cost per sources key and per YAML value.
type unitCharge struct {
	acct                *account
	perSource, perValue int64
}

func (u unitCharge) Charge(sources, values int) error {
	return u.acct.charge(int64(sources)*u.perSource + int64(values)*u.perValue)
}

// checked charges mem for what a validation keeps of each unit.
func checked(mem *account) unitCharge { return unitCharge{mem, checkedSourceCost, 0} }

// kept charges mem for what a diff keeps of each unit.
func kept(mem *account) unitCharge { return unitCharge{mem, keptSourceCost, keptValueCost} }

// release gives back everything the request holds and closes its account.
func (a *account) release() {
	m := a.m
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used -= a.held
	a.held = 0
	delete(m.live, a)
	if m.waiting == a {
		m.waiting = nil
	}
	close(m.freed) // the oldest request may be waiting, and may now be another
	m.freed = make(chan struct{})
}

// mib writes a byte count for people.
func mib(n int64) string {
	if n >= 1<<20 {
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// chargedReader charges the bytes read through it as they arrive, at cost
// per byte, after those paid for ahead (prepaid).
type chargedReader struct {
	r       io.Reader
	acct    *account
	cost    int64
	prepaid int64
}

func (c *chargedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	over := int64(n) - c.prepaid
	c.prepaid = max(0, c.prepaid-int64(n))
	if over > 0 {
		if cerr := c.acct.charge(over * c.cost); cerr != nil {
			return n, cerr
		}
	}
	return n, err
}

// chargedBody is a request body read through a chargedReader.
type chargedBody struct {
	chargedReader
	io.Closer
}

// chargeBody makes r's body charge acct as it is read, at cost per byte. A
// body whose length is declared is charged whole before the first read, so
// that one too large for the budget is refused without being read.
func chargeBody(r *http.Request, acct *account, cost int64, limit int64) error {
	b := &chargedBody{chargedReader: chargedReader{r: r.Body, acct: acct, cost: cost}, Closer: r.Body}
	// A declared length over the body limit is refused as such when the
	// body is read.
	if n := r.ContentLength; n > 0 && n <= limit {
		if err := acct.charge(n * cost); err != nil {
			return err
		}
		b.prepaid = n
	}
	r.Body = b
	return nil
}
