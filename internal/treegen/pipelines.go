package treegen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
)

// The many-pipelines shape: a platform team's tree of many small apps, each
// with keys of every glob kind a platform writes and depends_on entries on
// other apps' schemas (datasets.*_silver.app_0010_weather_*). It reproduces
// the shape of the synthetic trees the scale figures are measured on (the
// field mix of the CELINE files: ownership, dcat, dataspace, row filters,
// ontology, nested governance: blocks, unknown keys; seven literal keys in
// ten; every key naming its app), not their bytes.

// PipelinesOptions size a many-pipelines tree.
type PipelinesOptions struct {
	Apps         int     // number of apps (default 1000)
	Sources      int     // sources keys in each app's base file (default 100)
	OverlayShare float64 // share of apps with a deployer overlay (0: 0.3; negative: none)
	OverlayName  string  // overlay file name part (default "deploy")
	Owners       int     // owners in the registry (default max(20, Apps))
	Seed         uint64  // same seed, same tree
}

var (
	plLayers    = []string{"raw", "staging", "silver", "gold"}
	plDomains   = []string{"meters", "weather", "grid", "pv", "flex", "tariff", "members", "assets", "alerts", "forecast"}
	plEntities  = []string{"readings", "hourly", "daily", "summary", "events", "features", "topology", "profiles", "index", "status"}
	plLicenses  = []any{"CC-BY-4.0", "CC-BY-NC-4.0", "ODbL-1.0", "proprietary", nil}
	plAccess    = []string{"open", "internal", "restricted", "internal", "internal"}
	plRequire   = []any{"all", "partner", "contract", nil}
	plClasses   = []string{"green", "yellow", "red", "pii", "green"}
	plMedallion = map[string]string{"raw": "bronze", "staging": "bronze", "silver": "silver", "gold": "gold"}
	plPurposes  = []string{"EnergyForecasting", "GridMonitoring", "GridResilience", "Research", "Billing", "CommunityAnalytics"}
	plThemes    = []string{"ENER", "ENVI", "TECH", "REGI", "ECON"}
	plFreq      = []string{"HOURLY", "DAILY", "WEEKLY", "MONTHLY", "CONT"}
	plHandlers  = []string{"rec_registry", "direct_user_match", "http_in_list"}
	plOwnerType = []string{"schema:Corporation", "schema:GovernmentOrganization", "schema:ResearchOrganization",
		"schema:EducationalOrganization", "schema:NGO", "schema:Organization", "schema:Project"}
)

const plEU = "http://publications.europa.eu/resource/authority"

// GeneratePipelines builds a many-pipelines tree. GlobNames are names only a
// glob key covers (one per glob), MissNames names no key covers.
func GeneratePipelines(opts PipelinesOptions) *Tree {
	if opts.Apps <= 0 {
		opts.Apps = 1000
	}
	if opts.Sources <= 0 {
		opts.Sources = 100
	}
	opts.OverlayShare = share(opts.OverlayShare, 0.3)
	if opts.OverlayName == "" {
		opts.OverlayName = "deploy"
	}
	if opts.Owners <= 0 {
		opts.Owners = max(20, opts.Apps)
	}
	t := &Tree{Files: map[string][]byte{}, Options: Options{Apps: opts.Apps, Sources: opts.Apps * opts.Sources,
		OverlayName: opts.OverlayName, Owners: opts.Owners, Seed: opts.Seed}}
	seeded := func(salt uint64) *rand.Rand { return rand.New(rand.NewPCG(opts.Seed, salt)) }
	owners, ownerKeys := plOwnersDoc(opts.Owners, seeded(0x0e))
	t.Files["owners.yaml"] = dumpYAML(owners, "synthetic owner registry (treegen pipelines)")
	apps := make([]string, opts.Apps)
	for i := range apps {
		apps[i] = fmt.Sprintf("app_%04d", i)
	}
	for i, app := range apps {
		plApp(t, opts, i, app, apps, ownerKeys, seeded(uint64(i)+1))
	}
	return t
}

func plOwnersDoc(k int, rng *rand.Rand) (yamlMap, []string) {
	var list []any
	var keys []string
	for i := range k {
		id := fmt.Sprintf("owner-%05d", i)
		e := yamlMap{{"id", id}, {"type", plOwnerType[i%len(plOwnerType)]},
			{"name", fmt.Sprintf("Owner %05d Organisation", i)}, {"url", fmt.Sprintf("https://owner-%05d.example.org", i)}}
		if rng.Float64() < 0.4 {
			e = append(e, kv{"did", fmt.Sprintf("did:web:owner-%05d.example.org", i)})
		}
		if rng.Float64() < 0.3 {
			e = append(e, kv{"role", pick(rng, []string{"publisher", "controller", "processor"})})
		}
		if rng.Float64() < 0.3 {
			aliases := []any{fmt.Sprintf("alias-%05d-a", i), fmt.Sprintf("alias-%05d-b", i)}[:1+rng.IntN(2)]
			e = append(e, kv{"aliases", aliases})
			for _, a := range aliases {
				keys = append(keys, a.(string))
			}
		}
		if rng.Float64() < 0.25 {
			e = append(e, kv{"organization", yamlMap{{"create", true}, {"role", pick(rng, []string{"rec", "dso", "org"})},
				{"attributes", yamlMap{{"country", pick(rng, []string{"IT", "DE", "ES", "GR"})}}}}})
		}
		list = append(list, e)
		keys = append(keys, id)
	}
	return yamlMap{{"owners", list}}, keys
}

func plOwnership(rng *rand.Rand, ownerKeys []string) []any {
	n := []int{1, 1, 2, 2, 3}[rng.IntN(5)]
	var out []any
	for _, k := range sample(rng, ownerKeys, n) {
		out = append(out, yamlMap{{"name", k}, {"type", pick(rng, []string{"DATA_OWNER", "organization", "consortium"})}})
	}
	return out
}

func plDcat(rng *rand.Rand, full bool) yamlMap {
	var d yamlMap
	if full || rng.Float64() < 0.5 {
		var themes []any
		for _, th := range sample(rng, plThemes, 1+rng.IntN(2)) {
			themes = append(themes, plEU+"/data-theme/"+th)
		}
		d = append(d, kv{"themes", themes})
	}
	if full {
		d = append(d, kv{"language_uris", []any{plEU + "/language/ENG"}}, kv{"spatial_uris", []any{plEU + "/country/ITA"}})
	}
	if full || rng.Float64() < 0.5 {
		d = append(d, kv{"accrual_periodicity", plEU + "/frequency/" + pick(rng, plFreq)})
	}
	if rng.Float64() < 0.3 {
		d = append(d, kv{"conforms_to", pick(rng, []string{"http://www.w3.org/ns/sosa/", "https://saref.etsi.org/core/", "http://iec.ch/TC57/CIM100#"})})
	}
	if rng.Float64() < 0.2 {
		d = append(d, kv{"temporal", yamlMap{{"start", fmt.Sprintf("20%d-01-01", 15+rng.IntN(9))}}})
	}
	return d
}

func plRowFilter(handler string) yamlMap {
	args := yamlMap{{"column", "user_id"}}
	if handler == "http_in_list" {
		args = append(args, kv{"url", "https://registry.example.org/allowed"})
	}
	return yamlMap{{"handler", handler}, {"args", args}}
}

func plPurpose(rng *rand.Rand, n int) []any {
	var out []any
	for _, p := range sample(rng, plPurposes, n) {
		out = append(out, p)
	}
	return out
}

// plSource is one sources block; consent, exposure and row filters agree as
// the check requires.
func plSource(rng *rand.Rand, app, layer, table string, ownerKeys []string, glob bool) any {
	var b yamlMap
	if !glob || rng.Float64() < 0.5 {
		b = append(b, kv{"title", fmt.Sprintf("%s %s (%s)", app, strings.ReplaceAll(table, "_", " "), strings.ToUpper(layer[:1])+layer[1:])})
	}
	if !glob && rng.Float64() < 0.6 {
		b = append(b, kv{"description", fmt.Sprintf("Synthetic %s dataset %s produced by %s. Rows are keyed by entity and "+
			"timestamp; the layer applies the platform's usual deduplication and typing rules.", layer, table, app)})
	}
	if rng.Float64() < 0.5 {
		b = append(b, kv{"license", plLicenses[rng.IntN(len(plLicenses))]})
	}
	if rng.Float64() < 0.5 {
		b = append(b, kv{"ownership", plOwnership(rng, ownerKeys)})
	}
	if rng.Float64() < 0.4 {
		b = append(b, kv{"access_level", pick(rng, plAccess)})
	}
	if rng.Float64() < 0.2 {
		b = append(b, kv{"access_requirements", plRequire[rng.IntN(len(plRequire))]})
	}
	if rng.Float64() < 0.3 {
		b = append(b, kv{"classification", pick(rng, plClasses)})
	}
	tags := []any{layer}
	for _, d := range sample(rng, plDomains, 1+rng.IntN(3)) {
		tags = append(tags, d)
	}
	b = append(b, kv{"tags", tags})
	if rng.Float64() < 0.2 {
		b = append(b, kv{"retention_days", []any{30, 90, 365, 730, nil}[rng.IntN(5)]})
	}
	if rng.Float64() < 0.15 {
		b = append(b, kv{"source_system", app + "-extractor"})
	}
	if rng.Float64() < 0.1 {
		b = append(b, kv{"documentation_url", fmt.Sprintf("https://docs.example.org/%s/%s", app, table)})
	}
	expose, hasExpose := false, false
	if rng.Float64() < 0.5 {
		expose, hasExpose = rng.Float64() < 0.6, true
	}
	dataspace, offered, consent := plDataspace(rng, layer)
	if offered {
		expose, hasExpose = true, true // an offered dataset is listed (exposure-conflict)
	}
	if hasExpose {
		b = append(b, kv{"expose", expose})
	}
	if dataspace != nil {
		b = append(b, kv{"dataspace", dataspace})
	}
	if rng.Float64() < 0.3 {
		b = append(b, kv{"dcat", plDcat(rng, false)})
	}
	if filters := plRowFilters(rng, consent); filters != nil {
		b = append(b, kv{"row_filters", filters})
	}
	if rng.Float64() < 0.1 {
		if rng.Float64() < 0.5 {
			b = append(b, kv{"ontology", yamlMap{{"spec", table + "_mapping"}}})
		} else {
			b = append(b, kv{"ontology", yamlMap{{"spec_file", "./mappings/" + table + ".yaml"}}})
		}
	}
	if rng.Float64() < 0.03 {
		b = append(b, kv{"owner_team", pick(rng, []string{"energy", "grid", "platform"})}) // an unknown key: extra
	}
	if rng.Float64() < 0.05 {
		return yamlMap{{"governance", b}} // the nested spelling
	}
	return b
}

// plDataspace is a source's dataspace block (nil for none), whether it
// offers the dataset, and whether it asks for consent.
func plDataspace(rng *rand.Rand, layer string) (dataspace yamlMap, offered, consent bool) {
	if rng.Float64() >= 0.7 {
		return nil, false, false
	}
	offered = rng.Float64() < 0.25
	dataspace = yamlMap{{"expose", offered}, {"medallion", plMedallion[layer]}}
	if rng.Float64() < 0.4 {
		dataspace = append(dataspace, kv{"purpose", plPurpose(rng, 1+rng.IntN(2))})
	}
	if rng.Float64() < 0.15 {
		dataspace = append(dataspace, kv{"consent_required", true})
		consent = true
	}
	if rng.Float64() < 0.15 {
		dataspace = append(dataspace, kv{"contract_required", true})
	}
	return dataspace, offered, consent
}

// plRowFilters are a source's row filters, nil for none; consent needs one
// that serves a delegated request (consent-without-subject-filter).
func plRowFilters(rng *rand.Rand, consent bool) []any {
	var filters []any
	subject := false
	if rng.Float64() < 0.15 {
		for range 1 + rng.IntN(2) {
			h := pick(rng, plHandlers)
			subject = subject || h == "direct_user_match" || h == "rec_registry"
			filters = append(filters, plRowFilter(h))
		}
	}
	if consent && !subject {
		filters = append(filters, plRowFilter("direct_user_match"))
	}
	return filters
}

// plGlob is a glob of one of the kinds platforms write, by i: a trailing
// star, a leading one in the schema, the whole table, a class, ?-runs, a
// star inside the table name.
func plGlob(rng *rand.Rand, app, layer, domain string, i int) string {
	switch i % 6 {
	case 0:
		return fmt.Sprintf("datasets.ds_dev_%s.%s_%s_*", layer, app, domain)
	case 1:
		return fmt.Sprintf("datasets.*_%s.%s_%s*", layer, app, domain)
	case 2:
		return fmt.Sprintf("datasets.ds_dev_%s.%s_*", layer, app)
	case 3:
		return fmt.Sprintf("datasets.ds_dev_%s.%s_%s_[0-9]*", layer, app, domain)
	case 4:
		return fmt.Sprintf("datasets.ds_dev_%s.%s_%s_v?", strings.Repeat("?", len(layer)), app, domain)
	}
	return fmt.Sprintf("datasets.*.%s_%s_*_%s", app, domain, pick(rng, plEntities))
}

// plInstance is a name pattern matches.
func plInstance(pattern string, n int) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			fmt.Fprintf(&b, "q%dz", n)
		case '?':
			b.WriteByte('a')
		case '[':
			b.WriteByte('7')
			i += strings.IndexByte(pattern[i:], ']')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func plApp(t *Tree, opts PipelinesOptions, index int, app string, apps, ownerKeys []string, rng *rand.Rand) {
	nGlob := int(float64(opts.Sources)*0.3 + 0.5)
	nLit := opts.Sources - nGlob
	var keys []string
	blocks := map[string]any{}
	var literals, globs []string
	for k := 0; len(literals) < nLit; k++ {
		layer := pick(rng, plLayers)
		table := fmt.Sprintf("%s_%s_%d", pick(rng, plDomains), pick(rng, plEntities), k)
		key := fmt.Sprintf("datasets.ds_dev_%s.%s_%s", layer, app, table)
		blocks[key] = plSource(rng, app, layer, table, ownerKeys, false)
		keys = append(keys, key)
		literals = append(literals, key)
	}
	for i := 0; len(globs) < nGlob && i < 100*nGlob+100; i++ {
		layer, domain := pick(rng, plLayers), pick(rng, plDomains)
		pat := plGlob(rng, app, layer, domain, i)
		if _, dup := blocks[pat]; dup {
			continue
		}
		blocks[pat] = plSource(rng, app, layer, domain+"_glob", ownerKeys, true)
		keys = append(keys, pat)
		globs = append(globs, pat)
	}
	// Globs among literals, as hand-written files have them.
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	sources := make(yamlMap, len(keys))
	for i, k := range keys {
		sources[i] = kv{k, blocks[k]}
	}
	defaults := yamlMap{
		{"license", plLicenses[rng.IntN(len(plLicenses))]},
		{"ownership", plOwnership(rng, ownerKeys)},
		{"access_level", pick(rng, plAccess)},
		{"access_requirements", plRequire[rng.IntN(len(plRequire))]},
		{"classification", pick(rng, plClasses)},
		{"tags", []any{}},
		{"retention_days", []any{365, 730, nil}[rng.IntN(3)]},
		{"documentation_url", nil},
		{"source_system", app + "-pipeline"},
		{"dcat", plDcat(rng, true)},
		{"dataspace", yamlMap{{"expose", false}, {"medallion", nil}, {"contract_required", rng.Float64() < 0.2},
			{"consent_required", false}, {"odrl_action", "use"}, {"purpose", plPurpose(rng, rng.IntN(3))}}},
	}
	var depends []any
	for range rng.IntN(4) {
		other := apps[rng.IntN(len(apps))]
		if other == app && len(apps) > 1 {
			other = apps[(index+1)%len(apps)]
		}
		depends = append(depends, yamlMap{{"dataset", fmt.Sprintf("datasets.*_%s.%s_%s_*", pick(rng, []string{"silver", "gold"}), other, pick(rng, plDomains))}})
	}
	var doc yamlMap
	if rng.Float64() < 0.2 {
		doc = append(doc, kv{"active", false})
	}
	doc = append(doc, kv{"defaults", defaults}, kv{"depends_on", depends}, kv{"sources", sources})
	t.Files["apps/"+app+"/governance.yaml"] = dumpYAML(doc, fmt.Sprintf("synthetic governance for %s (treegen pipelines)", app))

	// Overlays for a share of apps: a golden-ratio sequence over the app's
	// place, close to the share at any number of apps.
	if f := float64(index) * 0.6180339887498949; f-float64(int(f)) < opts.OverlayShare {
		var osrc yamlMap
		for _, k := range sample(rng, keys, max(1, len(keys)/10)) {
			switch c := rng.Float64(); {
			case c < 0.4:
				osrc = append(osrc, kv{k, yamlMap{{"dataspace", yamlMap{{"expose", false}}}}})
			case c < 0.6:
				osrc = append(osrc, kv{k, yamlMap{{"license", nil}, {"tags", []any{"prod"}}}})
			case c < 0.8:
				osrc = append(osrc, kv{k, yamlMap{{"ownership", []any{yamlMap{{"name", pick(rng, ownerKeys)}, {"type", "DATA_OWNER"}}}}}})
			default:
				osrc = append(osrc, kv{k, yamlMap{{"expose", false}, {"dataspace", yamlMap{{"expose", false}}}}})
			}
		}
		only, deploy := "datasets.ds_dev_gold."+app+"_deployment_only", "datasets.ds_dev_gold."+app+"_deploy_*"
		osrc = append(osrc, kv{only, yamlMap{{"title", app + " deployment-only dataset"}, {"expose", true}}},
			kv{deploy, yamlMap{{"classification", "red"}, {"access_level", "restricted"}}})
		overlay := yamlMap{{"defaults", yamlMap{{"ownership", []any{yamlMap{{"name", pick(rng, ownerKeys)}, {"type", "DATA_OWNER"}}}}, {"tags", []any{"prod"}}}},
			{"sources", osrc}}
		t.Files["apps/"+app+"/governance."+opts.OverlayName+".yaml"] = dumpYAML(overlay, "deployer overlay for "+app)
		literals = append(literals, only)
		globs = append(globs, deploy)
	}
	t.ExactNames = append(t.ExactNames, literals...)
	isLiteral := map[string]bool{}
	for _, l := range literals {
		isLiteral[l] = true
	}
	for n, g := range globs {
		if name := plInstance(g, n); !isLiteral[name] {
			t.GlobNames = append(t.GlobNames, name)
		}
	}
	for n := range max(3, opts.Sources/10) {
		t.MissNames = append(t.MissNames, fmt.Sprintf("warehouse.%s.unlisted_%d", app, n))
	}
}

func pick[E any](rng *rand.Rand, s []E) E { return s[rng.IntN(len(s))] }

// sample is n distinct elements of s in random order.
func sample[E any](rng *rand.Rand, s []E, n int) []E {
	idx := rng.Perm(len(s))[:min(n, len(s))]
	out := make([]E, len(idx))
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

// A small YAML emitter: block style like hand-written files, flow lists for
// short lists of scalars, quoting only where a plain scalar would read as
// something else, long text folded.

type kv struct {
	k string
	v any
}

type yamlMap []kv

var plainScalar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)

func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int:
		return fmt.Sprint(v)
	case string:
		reserved := []string{"yes", "no", "on", "off", "true", "false", "null", "y", "n", "~"}
		if plainScalar.MatchString(v) && !slices.Contains(reserved, strings.ToLower(v)) {
			return v
		}
		if (strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://")) && !strings.ContainsAny(v, " #") {
			return v
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	panic(fmt.Sprintf("treegen: no scalar %T", v))
}

func emit(b *strings.Builder, v any, indent int) {
	pad := strings.Repeat(" ", indent)
	switch v := v.(type) {
	case yamlMap:
		for _, e := range v {
			key := scalar(e.k)
			switch x := e.v.(type) {
			case yamlMap:
				if len(x) == 0 {
					fmt.Fprintf(b, "%s%s: {}\n", pad, key)
					continue
				}
				fmt.Fprintf(b, "%s%s:\n", pad, key)
				emit(b, x, indent+2)
			case []any:
				if len(x) == 0 {
					fmt.Fprintf(b, "%s%s: []\n", pad, key)
				} else if flow, ok := flowList(x); ok {
					fmt.Fprintf(b, "%s%s: [%s]\n", pad, key, flow)
				} else {
					fmt.Fprintf(b, "%s%s:\n", pad, key)
					emit(b, x, indent+2)
				}
			case string:
				if len(x) > 70 {
					fmt.Fprintf(b, "%s%s: >\n", pad, key)
					fold(b, x, pad+"  ", 76-indent)
					continue
				}
				fmt.Fprintf(b, "%s%s: %s\n", pad, key, scalar(x))
			default:
				fmt.Fprintf(b, "%s%s: %s\n", pad, key, scalar(x))
			}
		}
	case []any:
		for _, x := range v {
			if m, ok := x.(yamlMap); ok {
				var sub strings.Builder
				emit(&sub, m, indent+2)
				s := sub.String()
				b.WriteString(pad + "- " + s[indent+2:])
				continue
			}
			fmt.Fprintf(b, "%s- %s\n", pad, scalar(x))
		}
	}
}

// flowList is a short list of scalars as a flow sequence.
func flowList(x []any) (string, bool) {
	n := 0
	parts := make([]string, len(x))
	for i, e := range x {
		switch e.(type) {
		case yamlMap, []any:
			return "", false
		}
		parts[i] = scalar(e)
		n += len(fmt.Sprint(e))
	}
	return strings.Join(parts, ", "), n < 60
}

// fold writes text as the lines of a folded scalar, at most width wide.
func fold(b *strings.Builder, text, pad string, width int) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+len(w)+1 > width {
			b.WriteString(pad + line + "\n")
			line = w
		} else if line != "" {
			line += " " + w
		} else {
			line = w
		}
	}
	if line != "" {
		b.WriteString(pad + line + "\n")
	}
}

func dumpYAML(doc yamlMap, header string) []byte {
	var b strings.Builder
	b.WriteString("# " + header + "\n\n")
	for _, e := range doc {
		emit(&b, yamlMap{e}, 0)
		b.WriteString("\n")
	}
	return []byte(b.String())
}
