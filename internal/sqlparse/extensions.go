package sqlparse

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// The dialects' additions to standard SQL: star modifiers (DuckDB,
// Snowflake, BigQuery), lambdas and struct literals (DuckDB, Snowflake),
// semi-structured paths and TABLE(FLATTEN(…)) (Snowflake), UNNEST … WITH
// OFFSET (BigQuery), and the samples and time travel, which change no
// column and are kept as their tokens (Table.Chosen). DuckDB's FROM-first SELECT, GROUP BY ALL and ORDER BY ALL
// are read where their clauses are (statements.go).

// starModifiers reads what may follow `*`: EXCLUDE (or BigQuery's EXCEPT),
// REPLACE and RENAME.
func (p *parser) starModifiers(it *SelectItem) error {
	for {
		var err error
		switch {
		case p.isKw("EXCLUDE") || (p.isKw("EXCEPT") && p.isOpAt(1, "(")):
			p.i++
			err = p.starExclude(it)
		case p.isKw("REPLACE") && p.isOpAt(1, "("):
			p.i++
			var items []*SelectItem
			items, err = inParens(p, func() ([]*SelectItem, error) { return list(p, p.replaceItem) })
			it.Replace = append(it.Replace, items...)
		case p.acceptKw("RENAME"):
			err = p.starRename(it)
		case it.Match == nil && p.starMatchAhead():
			err = p.starMatch(it)
		default:
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// starMatchOps are the operators a star's names may be matched with, by
// their first word, and the words they are written in.
var starMatchOps = map[string][]string{"LIKE": {"LIKE"}, "ILIKE": {"ILIKE"}, "GLOB": {"GLOB"}, "SIMILAR": {"SIMILAR", "TO"}}

// starMatchAhead reports whether [NOT] LIKE|ILIKE|GLOB|SIMILAR TO 'pattern'
// follows.
func (p *parser) starMatchAhead() bool {
	n := 0
	if p.isKw("NOT") {
		n = 1
	}
	words, ok := starMatchOps[p.peek(n).up]
	return ok && p.peek(n).kind == tWord && p.peek(n+len(words)).kind == tString
}

// starMatch reads [NOT] LIKE|ILIKE|GLOB|SIMILAR TO 'pattern' after a star,
// refusing a pattern it cannot match names with.
func (p *parser) starMatch(it *SelectItem) error {
	m := &StarMatch{Not: p.acceptKw("NOT")}
	words := starMatchOps[p.at().up]
	p.i += len(words)
	m.Op = strings.Join(words, " ")
	t := p.advance()
	m.Pattern, m.Pos = t.text, t.pos()
	if _, err := m.Matcher(); err != nil {
		return &Error{Pos: m.Pos, Msg: err.Error()}
	}
	it.Match = m
	return nil
}

// Matcher is the test of a name m keeps, the name as lineage compares it
// (lowercased). LIKE and ILIKE read % and _ as wildcards, with no escape;
// GLOB reads *, ? and [...]; SIMILAR TO is a regular expression (RE2, as
// DuckDB's) that a name keeps when it is found anywhere in it, and NOT
// SIMILAR TO one that drops a name it matches whole: DuckDB reads a star's
// two forms so.
func (m *StarMatch) Matcher() (func(name string) bool, error) {
	var expr string
	switch m.Op {
	case "LIKE", "ILIKE":
		var b strings.Builder
		b.WriteString("^(?s)")
		if m.Op == "ILIKE" {
			b.WriteString("(?i)")
		}
		for _, r := range m.Pattern {
			switch r {
			case '%':
				b.WriteString(".*")
			case '_':
				b.WriteByte('.')
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		expr = b.String() + "$"
	case "GLOB":
		if _, err := path.Match(m.Pattern, ""); err != nil {
			return nil, fmt.Errorf("GLOB pattern %q: %v", m.Pattern, err)
		}
		return func(name string) bool {
			ok, _ := path.Match(m.Pattern, name)
			return ok != m.Not
		}, nil
	default: // SIMILAR TO
		expr = m.Pattern
		if m.Not {
			expr = "^(?:" + m.Pattern + ")$"
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s pattern %q: %v", m.Op, m.Pattern, err)
	}
	return func(name string) bool { return re.MatchString(name) != m.Not }, nil
}

// starExclude reads EXCLUDE's column or parenthesised columns.
func (p *parser) starExclude(it *SelectItem) error {
	if p.isOp("(") {
		ids, err := p.identList()
		if err != nil {
			return err
		}
		it.Exclude = append(it.Exclude, ids...)
		return nil
	}
	id, err := p.columnName()
	if err != nil {
		return err
	}
	it.Exclude = append(it.Exclude, id)
	return nil
}

// replaceItem reads one `expr AS column` of REPLACE.
func (p *parser) replaceItem() (*SelectItem, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("AS"); err != nil {
		return nil, err
	}
	id, err := p.columnName()
	if err != nil {
		return nil, err
	}
	return &SelectItem{Expr: e, Alias: &id, Pos: id.Pos}, nil
}

// starRename reads RENAME's `a AS b`, or a parenthesised list of them.
func (p *parser) starRename(it *SelectItem) error {
	if !p.isOp("(") {
		pair, err := p.renamePair()
		if err != nil {
			return err
		}
		it.Rename = append(it.Rename, pair)
		return nil
	}
	pairs, err := inParens(p, func() ([][2]Ident, error) { return list(p, p.renamePair) })
	if err != nil {
		return err
	}
	it.Rename = append(it.Rename, pairs...)
	return nil
}

func (p *parser) renamePair() ([2]Ident, error) {
	from, err := p.columnName()
	if err != nil {
		return [2]Ident{}, err
	}
	if err := p.expectKw("AS"); err != nil {
		return [2]Ident{}, err
	}
	to, err := p.columnName()
	if err != nil {
		return [2]Ident{}, err
	}
	return [2]Ident{from, to}, nil
}

// lambdaAhead reads (x, y) -> body at a "(". One parameter in
// parentheses is read as x -> body is: not before a string or a number,
// where the arrow is JSON's (x -> 'key'), and not in the generic dialect,
// where (x) -> 0 is PostgreSQL's JSON arrow on a column in parentheses.
func (p *parser) lambdaAhead() (Expr, bool, error) {
	if !p.d.lambdas && p.d != Generic {
		return nil, false, nil
	}
	n := 1
	for identToken(p.peek(n)) && p.isOpAt(n+1, ",") {
		n += 2
	}
	if !identToken(p.peek(n)) || !p.isOpAt(n+1, ")") || !p.isOpAt(n+2, "->") {
		return nil, false, nil
	}
	if n == 1 && (!p.d.lambdas || jsonArrowTo(p.peek(n+3))) {
		return nil, false, nil
	}
	pos := p.pos()
	p.i++
	var params []Ident
	for !p.isOp(")") {
		id, _ := p.anyIdent("a parameter")
		params = append(params, id)
		p.acceptOp(",")
	}
	p.i += 2 // ) ->
	l, err := p.lambda(params, pos)
	return l, true, err
}

// jsonArrowTo reports whether an arrow before t is JSON's, x -> 'key' or
// x -> 0, rather than a lambda's.
func jsonArrowTo(t token) bool { return t.kind == tString || t.kind == tNumber }

// lambda reads the body of params -> body, after the arrow.
func (p *parser) lambda(params []Ident, pos Pos) (Expr, error) {
	body, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &Lambda{Params: params, Body: body, Pos: pos}, nil
}

// identifierTable is the table Snowflake's or Databricks'
// IDENTIFIER('db.schema.t') in FROM names, its parts quoted as the
// warehouse quotes names ("…" or `…`); ok is false for any other call.
func (p *parser) identifierTable(f *Func) (name []Ident, ok bool) {
	q := p.d.identifierQuote
	if q == 0 || len(f.Name) != 1 || f.Name[0].Quoted || f.Name[0].Name != "identifier" || len(f.Args) != 1 {
		return nil, false
	}
	// Any string of text names a table, as any prints as a plain string;
	// one of bits or bytes names nothing.
	l, isLiteral := f.Args[0].(*Literal)
	if !isLiteral || !l.IsText() || l.Text == "" {
		return nil, false
	}
	for part := range strings.SplitSeq(l.Text, ".") {
		quoted := len(part) >= 2 && part[0] == q && part[len(part)-1] == q
		if quoted {
			part = part[1 : len(part)-1]
		}
		if part == "" {
			return nil, false
		}
		name = append(name, Ident{Name: strings.ToLower(part), Quoted: quoted, Pos: l.Pos})
	}
	return name, true
}

// lambdaKeyword reads DuckDB's lambda x, y: body, the same lambda as
// (x, y) -> body.
func (p *parser) lambdaKeyword(pos Pos) (Expr, error) {
	p.i++ // LAMBDA
	params, err := list(p, func() (Ident, error) { return p.anyIdent("a parameter") })
	if err != nil {
		return nil, err
	}
	if err := p.expectOp(":"); err != nil {
		return nil, err
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.lambda(params, pos)
}

// listComprehension reads the rest of DuckDB's [expr FOR x[, i] IN list
// [IF cond]] after its expression, and returns what it means:
// list_transform(list_filter(list, x -> cond), x -> expr). Filtering
// renumbers the elements, so an index with IF is refused rather than read
// as another list.
func (p *parser) listComprehension(e Expr, pos Pos) (Expr, error) {
	p.i++ // FOR
	params, err := list(p, func() (Ident, error) { return p.anyIdent("a name") })
	if err != nil {
		return nil, err
	}
	if len(params) > 2 {
		return nil, &Error{Pos: params[2].Pos, Msg: "a list comprehension names an element and at most its index"}
	}
	if err := p.expectKw("IN"); err != nil {
		return nil, err
	}
	src, err := p.expr()
	if err != nil {
		return nil, err
	}
	if at := p.pos(); p.acceptKw("IF") {
		if len(params) > 1 {
			return nil, &Error{Pos: at, Msg: "a list comprehension with an index and IF is not read"}
		}
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		src = &Func{Name: []Ident{{Name: "list_filter"}}, Args: []Expr{src, &Lambda{Params: params, Body: cond, Pos: at}}, Pos: pos}
	}
	if err := p.expectOp("]"); err != nil {
		return nil, err
	}
	return &Func{Name: []Ident{{Name: "list_transform"}}, Args: []Expr{src, &Lambda{Params: params, Body: e, Pos: pos}}, Pos: pos}, nil
}

// structLiteral reads DuckDB's {'key': value, …}.
func (p *parser) structLiteral(pos Pos) (Expr, error) {
	keys, values, err := keyValues(p, func() (string, error) {
		k := p.advance()
		if k.kind != tString && !identToken(k) {
			return "", p.unexpected("a struct key")
		}
		return strings.ToLower(k.text), nil
	})
	if err != nil {
		return nil, err
	}
	return &Struct{Keys: keys, Values: values, Pos: pos}, nil
}

// mapLiteral reads DuckDB's MAP {k: v, …} at the brace: its keys are
// expressions, not names.
func (p *parser) mapLiteral(pos Pos) (Expr, error) {
	keys, values, err := keyValues(p, p.expr)
	if err != nil {
		return nil, err
	}
	return &Map{Keys: keys, Values: values, Pos: pos}, nil
}

// keyValues reads {key: value, …} at the brace, each key read by key.
func keyValues[K any](p *parser, key func() (K, error)) (keys []K, values []Expr, err error) {
	p.i++ // {
	for !p.isOp("}") {
		k, err := key()
		if err != nil {
			return nil, nil, err
		}
		if err := p.expectOp(":"); err != nil {
			return nil, nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, nil, err
		}
		keys, values = append(keys, k), append(values, v)
		if !p.acceptOp(",") {
			break
		}
	}
	return keys, values, p.expectOp("}")
}

// colonPath reads Snowflake's x:key at the colon.
func (p *parser) colonPath(x Expr, pos Pos) (Expr, error) {
	p.i++
	if p.isOp("[") && p.peek(1).kind == tString && p.isOpAt(2, "]") {
		// Databricks' x:['key'], the same as x:key.
		p.i += 3
		return &Field{X: x, Name: strings.ToLower(p.toks[p.i-2].text), Colon: true, Pos: pos}, nil
	}
	name := p.advance().text
	if name == "" {
		return nil, p.errorf("zero-length path key")
	}
	return &Field{X: x, Name: strings.ToLower(name), Colon: true, Pos: pos}, nil
}

// tableOfFunc reads Snowflake's TABLE(FLATTEN(…)) in FROM.
func (p *parser) tableOfFunc(lateral bool, pos Pos) (TableExpr, error) {
	p.i += 2
	f, err := p.primary()
	if err != nil {
		return nil, err
	}
	fn, ok := f.(*Func)
	if !ok {
		return nil, p.errorf("TABLE(…) must wrap a function call")
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return p.tableFuncTail(fn, lateral, pos)
}

// tableFuncTail reads what may follow a function in FROM: WITH
// ORDINALITY, an alias, BigQuery's WITH OFFSET [AS] name.
func (p *parser) tableFuncTail(fn *Func, lateral bool, pos Pos) (TableExpr, error) {
	tf := &TableFunc{Func: fn, Lateral: lateral, Pos: pos}
	tf.WithOrdinality = p.acceptKws("WITH", "ORDINALITY")
	alias, err := p.tableAlias()
	if err != nil {
		return nil, err
	}
	tf.Alias = alias
	if p.acceptKws("WITH", "OFFSET") {
		p.acceptKw("AS")
		id, err := p.ident("an offset alias")
		if err != nil {
			id = Ident{Name: "offset"}
		}
		tf.WithOffset = &id
	}
	return tf, nil
}

// skipTableModifiers skips what may follow a table and chooses its rows,
// not its columns: TABLESAMPLE/SAMPLE (…) clauses, which choose rows at
// random, and time travel, which chooses the table's rows as they were
// (skipTimeTravel).
func (p *parser) skipTableModifiers() error {
	for {
		travelled, err := p.skipTimeTravel()
		if err != nil {
			return err
		}
		if travelled {
			continue
		}
		if !(p.isKw("TABLESAMPLE") || p.isKw("SAMPLE") && (p.isOpAt(1, "(") || p.peek(1).kind == tNumber ||
			sampleMethods[p.peek(1).up] && p.isOpAt(2, "("))) {
			return nil
		}
		p.i++
		for p.at().kind == tWord && !p.isOp("(") && !reserved[p.at().up] {
			p.i++
		}
		if p.isOp("(") {
			if err := p.skipParens(); err != nil {
				return err
			}
		} else if p.at().kind == tNumber {
			p.i++
			p.acceptKw("ROWS")
			p.acceptOp("%")
		}
		if p.acceptKw("REPEATABLE") || p.acceptKw("SEED") {
			if err := p.skipParens(); err != nil {
				return err
			}
		}
	}
}

// skipTimeTravel skips one clause reading a table as it was at another
// time, and reports whether there was one: Snowflake's AT (…), BEFORE (…),
// and CHANGES (…) with the AT or BEFORE and the END (…) after it (DuckDB
// reads AT (VERSION => …) too); BigQuery's FOR SYSTEM_TIME AS OF expr;
// Databricks' TIMESTAMP AS OF expr and VERSION AS OF expr.
func (p *parser) skipTimeTravel() (bool, error) {
	if changes, err := p.skipWordParens("CHANGES"); changes || err != nil {
		if err == nil {
			_, err = p.skipWordParens("AT", "BEFORE")
		}
		if err == nil {
			_, err = p.skipWordParens("END")
		}
		return changes, err
	}
	if skipped, err := p.skipWordParens("AT", "BEFORE"); skipped || err != nil {
		return skipped, err
	}
	var n int // the words before the point in time
	switch {
	case p.isKw("FOR") && p.isKwAt(1, "SYSTEM_TIME") && p.isKwAt(2, "AS") && p.isKwAt(3, "OF"):
		n = 4
	case p.isAnyKw("TIMESTAMP", "VERSION") && p.isKwAt(1, "AS") && p.isKwAt(2, "OF"):
		n = 3
	default:
		return false, nil
	}
	p.i += n
	_, err := p.expr()
	return err == nil, err
}

// skipWordParens skips one of words and the parenthesised text after it,
// and reports whether they were there.
func (p *parser) skipWordParens(words ...string) (bool, error) {
	if !p.isAnyKw(words...) || !p.isOpAt(1, "(") {
		return false, nil
	}
	p.i++
	return true, p.skipParens()
}

// sampleMethods are the methods Snowflake's SAMPLE names before its
// parentheses (SAMPLE BLOCK (10)).
var sampleMethods = map[string]bool{"BERNOULLI": true, "ROW": true, "SYSTEM": true, "BLOCK": true}

// skipUsingSample skips DuckDB's USING SAMPLE clause.
func (p *parser) skipUsingSample() error {
	if !p.acceptKws("USING", "SAMPLE") {
		return nil
	}
	for !p.isOp(")") && !p.isOp(",") && !p.isOp(";") && p.at().kind != tEOF && !(p.at().kind == tWord && reserved[p.at().up]) {
		if p.isOp("(") {
			if err := p.skipParens(); err != nil {
				return err
			}
			continue
		}
		p.i++
	}
	return nil
}
