package sqlparse

import "strings"

// Types, typed literals, intervals and the words that stand for constants
// and date parts.

// typeSynonyms are type names that mean the same type in every dialect
// read, mapped to one spelling so that `x::int` and CAST(x AS INTEGER)
// print alike. FLOAT is left alone: it is 8 bytes in PostgreSQL and 4 in
// DuckDB.
var typeSynonyms = map[string]string{
	"INTEGER": "INT", "INT4": "INT", "INT8": "BIGINT", "INT2": "SMALLINT", "FLOAT8": "DOUBLE",
	"DOUBLE PRECISION": "DOUBLE", "BOOL": "BOOLEAN", "CHARACTER VARYING": "VARCHAR", "NUMERIC": "DECIMAL",
	"TIMESTAMP WITHOUT TIME ZONE": "TIMESTAMP", "TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ",
	"TIME WITHOUT TIME ZONE": "TIME", "INT64": "BIGINT", "FLOAT64": "DOUBLE",
	"TIMESTAMP WITH LOCAL TIME ZONE": "TIMESTAMP_LTZ", // Snowflake: one type, two names
}

// dateParts are the unit words of INTERVAL and of date functions' first
// argument (DATEADD(day, …), DATE_TRUNC(month, …)).
var dateParts = words(`year years yr yrs y yy yyy yyyy quarter quarters qtr qtrs q month months mon mons mm
	week weeks wk wks w isoweek day days d dd dayofweek dow dayofweekiso dayofyear doy hour hours h hh hr hrs
	minute minutes m mi min mins second seconds s sec secs ss millisecond milliseconds ms msec microsecond
	microseconds us usec nanosecond nanoseconds ns nsec epoch century centuries decade decades millennium
	millennia isoyear isodow yearofweek weekofyear weekday date time datetime timezone_hour timezone_minute
	weekiso week_iso yearofweekiso dayofweek_iso epoch_second epoch_seconds epoch_millisecond
	epoch_milliseconds epoch_microsecond epoch_microseconds epoch_nanosecond epoch_nanoseconds`)

// datePartFuncs take a bare unit word among their arguments.
var datePartFuncs = words(`dateadd date_add datediff date_diff date_sub date_trunc datetrunc datetime_add
	datetime_sub datetime_diff datetime_trunc timestamp_add timestamp_sub timestamp_diff timestamp_trunc
	time_add time_sub time_diff time_trunc timestampadd timestampdiff timeadd timediff timestamp_bucket
	last_day date_part datepart date_bucket time_slice`)

// typedLiteralTypes are the types written before a string to make a
// typed literal: DATE '2020-01-01'.
var typedLiteralTypes = words(`DATE TIME TIMESTAMP TIMESTAMPTZ TIMESTAMP_NTZ TIMESTAMP_LTZ TIMESTAMP_TZ DATETIME
	JSON NUMERIC DECIMAL BIGNUMERIC UUID BYTEA BLOB INET`)

// specialNiladic are the keyword functions called without parentheses.
var specialNiladic = words(`CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP LOCALTIME LOCALTIMESTAMP CURRENT_USER
	SESSION_USER CURRENT_ROLE CURRENT_SCHEMA CURRENT_CATALOG CURRENT_DATABASE SYSDATE SYSTIMESTAMP
	CURRENT_REGION CURRENT_ACCOUNT CURRENT_WAREHOUSE`)

// words is the set of the space-separated words of s.
func words(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// datePartArg is a date function's argument: a bare unit word (DATEADD(day,
// …)) is a keyword, not a column.
func datePartArg(fname string, arg Expr) Expr {
	if cr, ok := arg.(*ColumnRef); ok && len(cr.Parts) == 1 && !cr.Parts[0].Quoted && datePartFuncs[fname] && dateParts[cr.Parts[0].Name] {
		return &Literal{Kind: LitKeyword, Text: strings.ToUpper(cr.Parts[0].Name), Pos: cr.Pos}
	}
	return arg
}

// tokenSQL is a token as SQL text again, quoted as the printer quotes: a
// type's modifiers are kept as text, and a string or quoted name without its
// quotes would read back as something else.
func tokenSQL(t token) string {
	var b strings.Builder
	switch t.kind {
	case tString:
		writeString(&b, t.text)
	case tQuoted:
		writeQuoted(&b, t.text)
	default:
		return t.text
	}
	return b.String()
}

// typeName reads a type after :: or AS in a cast.
func (p *parser) typeName() (TypeName, error) {
	t := p.at()
	if t.kind != tWord && t.kind != tQuoted {
		return TypeName{}, p.unexpected("a type name")
	}
	// A type is kept as upper-case text, so a quoted name is taken only
	// when it reads the same unquoted ("int4"); any other is refused rather
	// than changed.
	if t.kind == tQuoted && !plainName(strings.ToLower(t.text)) {
		return TypeName{}, p.errorf("quoted type name %q is not supported", t.text)
	}
	parts := []string{strings.ToUpper(p.advance().text)}
	for p.acceptOp(".") { // pg_catalog.int4
		n, err := p.anyIdent("a type name")
		if err != nil {
			return TypeName{}, err
		}
		if n.Quoted && !plainName(strings.ToLower(n.Name)) {
			return TypeName{}, p.errorf("quoted type name %q is not supported", n.Name)
		}
		parts[len(parts)-1] += "." + strings.ToUpper(n.Name)
	}
	text := strings.Join(p.typeWords(parts), " ")
	if syn, ok := typeSynonyms[text]; ok {
		text = syn
	}
	if p.isOp("(") {
		mods, err := p.typeModifiers()
		if err != nil {
			return TypeName{}, err
		}
		text += mods
		// TIMESTAMP(3) WITH TIME ZONE: the precision before the zone.
		if len(parts) == 1 && (parts[0] == "TIMESTAMP" || parts[0] == "TIME") {
			if zone := p.timeZoneWords(); zone != nil {
				text += " " + strings.Join(zone, " ")
			}
		}
	}
	if p.isOp("<") && nestedTypes[text] {
		params, err := p.typeParameters()
		if err != nil {
			return TypeName{}, err
		}
		text += params
	}
	for p.isOp("[") && p.isOpAt(1, "]") {
		p.i += 2
		text += "[]"
	}
	return TypeName{Text: text}, nil
}

// typeWords adds the further words of a type written in several
// (DOUBLE PRECISION, CHARACTER VARYING, TIMESTAMP WITH TIME ZONE, INTERVAL
// DAY TO SECOND) to its first.
func (p *parser) typeWords(parts []string) []string {
	switch parts[0] {
	case "DOUBLE":
		if p.acceptKw("PRECISION") {
			parts = append(parts, "PRECISION")
		}
	case "CHARACTER", "CHAR", "NATIONAL", "BIT":
		if p.acceptKw("VARYING") {
			parts = append(parts, "VARYING")
		}
	case "TIMESTAMP", "TIME":
		parts = append(parts, p.timeZoneWords()...)
	case "INTERVAL": // INTERVAL DAY, INTERVAL DAY TO SECOND
		for p.at().kind == tWord && dateParts[strings.ToLower(p.at().text)] {
			parts = append(parts, p.advance().up)
			if p.isKw("TO") && p.peek(1).kind == tWord && dateParts[strings.ToLower(p.peek(1).text)] {
				parts = append(parts, p.advance().up)
			}
		}
	}
	return parts
}

// timeZoneWords reads WITH TIME ZONE, WITHOUT TIME ZONE or (Snowflake)
// WITH LOCAL TIME ZONE after a time type, and returns its words; none
// when there is none.
func (p *parser) timeZoneWords() []string {
	n := 1
	if p.isKw("WITH") && p.isKwAt(1, "LOCAL") {
		n = 2
	}
	if !p.isAnyKw("WITH", "WITHOUT") || !p.isKwAt(n, "TIME") || !p.isKwAt(n+1, "ZONE") {
		return nil
	}
	words := make([]string, 0, n+2)
	for range n + 2 {
		words = append(words, p.advance().up)
	}
	return words
}

// typeModifiers reads a type's parenthesised modifiers, VARCHAR(32) or
// DECIMAL(10, 2), as text.
func (p *parser) typeModifiers() (string, error) {
	p.i++ // (
	var args []string
	for !p.isOp(")") {
		t := p.advance()
		switch t.kind {
		case tEOF:
			return "", p.unexpected(`")"`)
		case tWord:
			args = append(args, t.up)
		case tOp:
			args = append(args, t.text)
		default:
			args = append(args, tokenSQL(t))
		}
	}
	p.i++
	return "(" + strings.ReplaceAll(strings.Join(args, " "), " , ", ", ") + ")", nil
}

// nestedTypes are the types written with parameters in angle brackets,
// ARRAY<INT64> or STRUCT<a INT64, b STRING>: the reference's parser
// (sqlglot's NESTED_TYPE_TOKENS) reads them after these names, of those
// the supported dialects have. After any other type a < is the
// comparison: x::int < 5.
var nestedTypes = map[string]bool{"ARRAY": true, "LIST": true, "MAP": true, "OBJECT": true, "RANGE": true, "STRUCT": true}

// typeParamOps are the operators a nested type's parameters may hold.
// A field may be named with a colon, as Databricks writes them
// (STRUCT<a: INT>).
var typeParamOps = map[string]bool{"<": true, ">": true, ">>": true, ",": true, "(": true, ")": true, ".": true, ":": true}

// tightBefore and tightAfter are the operators of a type's parameters
// written with no space before or after them: ARRAY<STRUCT<a INT64>>,
// NUMERIC(10, 2).
var (
	tightBefore = map[string]bool{"<": true, ">": true, ">>": true, ",": true, "(": true, ")": true, ":": true}
	tightAfter  = map[string]bool{"<": true, "(": true}
)

// typeParameters reads a nested type's parameters as text: type and field
// names, numbers, commas, parentheses and nested <…>. An empty <>, or
// another operator, is refused: its text would not read back as the same
// tokens (ARRAY< > printed as ARRAY<>, the operator <>).
func (p *parser) typeParameters() (string, error) {
	depth := 0
	var b strings.Builder
	var prev token
	for {
		t := p.at()
		switch {
		case t.kind == tEOF:
			return "", p.unexpected(`">"`)
		case prev.kind == tOp && prev.text == "<" && t.kind == tOp:
			return "", p.unexpected("a type or field name")
		case t.kind == tOp && !typeParamOps[t.text]:
			return "", p.errorf("%s is not allowed in a type's parameters", describe(t))
		}
		p.i++
		if t.kind == tOp && t.text == "<" {
			depth++
		}
		if t.kind == tOp && (t.text == ">" || t.text == ">>") {
			depth -= len(t.text)
		}
		if b.Len() > 0 && !(t.kind == tOp && tightBefore[t.text]) && !(prev.kind == tOp && tightAfter[prev.text]) {
			b.WriteByte(' ')
		}
		if t.kind == tWord {
			b.WriteString(t.up)
		} else {
			b.WriteString(tokenSQL(t))
		}
		if depth <= 0 {
			return b.String(), nil
		}
		prev = t
	}
}

// interval reads INTERVAL value [unit [TO unit]].
func (p *parser) interval() (Expr, error) {
	pos := p.pos()
	p.i++ // INTERVAL
	iv, err := p.intervalPart(pos)
	if err != nil {
		return nil, err
	}
	if !p.d.multiUnitIntervals || iv.Unit == "" || !p.atIntervalPart() {
		return iv, nil
	}
	// INTERVAL 1 DAY 2 HOURS: the sum of its parts, kept in parentheses
	// so that it prints as one operand in any dialect.
	var sum Expr = iv
	for p.atIntervalPart() {
		next, err := p.intervalPart(p.pos())
		if err != nil {
			return nil, err
		}
		sum = &Binary{Op: "+", L: sum, R: next, Pos: pos}
	}
	return &Paren{X: sum, Pos: pos}, nil
}

// atIntervalPart reports whether a further part of a multi-unit interval
// follows: a number or a string, maybe signed, then a unit.
func (p *parser) atIntervalPart() bool {
	k := 0
	if p.isOp("-") || p.isOp("+") {
		k = 1
	}
	t, u := p.peek(k), p.peek(k+1)
	return (t.kind == tNumber || t.kind == tString) && u.kind == tWord && dateParts[strings.ToLower(u.text)]
}

// intervalPart reads the value and the unit of an interval, after the
// INTERVAL keyword or a multi-unit literal's part before.
func (p *parser) intervalPart(pos Pos) (*Interval, error) {
	iv := &Interval{Pos: pos}
	t := p.at()
	at := t.pos()
	switch {
	case t.kind == tString:
		p.i++
		iv.Value = &Literal{Kind: LitString, Text: t.text, Pos: at}
	case t.kind == tNumber:
		p.i++
		iv.Value = &Literal{Kind: LitNumber, Text: t.text, Pos: at}
	case t.kind == tParam:
		p.i++
		iv.Value = &Param{Text: t.text, Pos: at}
	case p.isOp("-") && p.peek(1).kind == tNumber:
		p.i += 2
		iv.Value = &Literal{Kind: LitNumber, Text: "-" + p.toks[p.i-1].text, Pos: at}
	case p.d.multiUnitIntervals && (p.isOp("-") || p.isOp("+")) && (p.peek(1).kind == tString || p.peek(1).kind == tNumber):
		// Databricks signs a part's string or number: -'2' is minus '2'.
		v := p.peek(1)
		kind := LitString
		if v.kind == tNumber {
			kind = LitNumber
		}
		iv.Value = &Literal{Kind: kind, Text: v.text, Pos: v.pos()}
		if p.isOp("-") {
			iv.Value = &Unary{Op: "-", X: iv.Value, Pos: at}
		}
		p.i += 2
	case p.isOp("("):
		e, err := inParens(p, p.expr)
		if err != nil {
			return nil, err
		}
		// Kept in its parentheses, which it is written in again:
		// INTERVAL (n - 1) DAY without them reads n - (1 DAY).
		iv.Value = &Paren{X: e, Pos: at}
	default:
		e, err := p.postfix() // INTERVAL x DAY with a column (BigQuery)
		if err != nil {
			return nil, err
		}
		iv.Value = e
	}
	if u := p.at(); u.kind == tWord && dateParts[strings.ToLower(u.text)] {
		p.i++
		iv.Unit = u.up
		if p.acceptKw("TO") {
			iv.Unit += " TO " + p.advance().up
		}
	}
	return iv, nil
}
