package ui

import (
	"net/http"

	"github.com/celine-eu/governanced/api/internal/httpread"
	"github.com/celine-eu/governanced/internal/owners"
	"github.com/celine-eu/governanced/internal/snapshot"
)

// ownersView is the owners page's body: the registry, and the ownership
// names no owner of it has.
type ownersView struct {
	Owners     []ownerRow
	Unresolved []ownerRow
}

type ownerRow struct {
	ID, Name, Type, URI string
	Aliases             []string
	Datasets            int
}

func (p *Pages) owners(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	var body ownersView
	for _, e := range snap.Owners.All() {
		body.Owners = append(body.Owners, newOwnerRow(snap, e))
	}
	for _, name := range snap.OwnershipNames() {
		if snap.Owners.ByID(name) == nil {
			body.Unresolved = append(body.Unresolved, ownerRow{ID: name, Datasets: len(snap.OwnedBy(name))})
		}
	}
	v := p.newView(r, snap, "owners", "Owners")
	v.Body = body
	p.render(w, r, http.StatusOK, "owners", v)
}

func newOwnerRow(snap *snapshot.Snapshot, e *owners.Entry) ownerRow {
	row := ownerRow{ID: e.ID, Name: deref(e.Name), Type: e.Type, Aliases: e.Aliases, Datasets: len(snap.OwnedBy(e.ID))}
	row.URI, _ = e.CanonicalURI()
	return row
}

// ownerView is one owner's page: its registry entry (nil for a name no
// owner has) and the datasets naming it.
type ownerView struct {
	Key   string // as asked: an id, an alias or an unresolved name
	Entry *ownerDetail
	ownerRow
	Rows []datasetRow // the datasets naming it, up to ownerLimit
	// More is how many datasets name the owner beyond those listed; the
	// datasets table filtered by the owner lists them all.
	More int
	All  string
}

type ownerDetail struct {
	Role, DID, URL, Location string
	Organization             *owners.Organization
}

// ownerLimit caps the datasets an owner's page lists.
const ownerLimit = 100

func (p *Pages) owner(w http.ResponseWriter, r *http.Request, snap *snapshot.Snapshot) {
	key := httpread.PathParam(r, "key")
	body := ownerView{Key: key}
	id := key
	if e := snap.Owners.ByID(key); e != nil {
		id = e.ID
		body.ownerRow = newOwnerRow(snap, e)
		body.Entry = &ownerDetail{Role: deref(e.Role), DID: deref(e.DID), URL: deref(e.URL),
			Location: location(e.File, e.Pos.Line, e.Pos.Column), Organization: e.Organization}
	} else {
		body.ownerRow = ownerRow{ID: key, Datasets: len(snap.OwnedBy(key))}
	}
	owned := snap.OwnedBy(id)
	if body.Entry == nil && len(owned) == 0 {
		p.fail(w, r, http.StatusNotFound, "No such owner", "No owner has the id or alias "+quoted(key)+", and no dataset names it.", link{"Every owner", Prefix + "/owners"})
		return
	}
	body.All = datasetsURL("owner", id)
	for i, d := range owned {
		if i == ownerLimit {
			body.More = len(owned) - i
			break
		}
		body.Rows = append(body.Rows, newDatasetRow(snap, d))
	}
	title := key
	if body.Name != "" {
		title = body.Name
	}
	v := p.newView(r, snap, "owners", title)
	v.Body = body
	p.render(w, r, http.StatusOK, "owner", v)
}
