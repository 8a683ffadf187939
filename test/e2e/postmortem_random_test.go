package e2e

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kgc-dev/kgc/test/e2e/framework"
)

// The post-mortem's randomized differential test: seeded random batches of
// scenarios ("worlds", each in namespaces of its own) are played for real
// on the plane, by several people (impersonated), close together in time:
// deletes with every propagation policy of owners across kinds and scopes,
// finalizers that stay and finalizers the test removes later, owner
// references across namespaces and to objects that never existed, namespace
// and CRD deletes, and server dry runs. For every object the test knows the
// truth from what it did, the cluster's settled end state and its own
// reading of the audit log: whose request started the object's going (or
// none), from which root object, and its fate. `kgc postmortem` must tell
// the same for every object, on the API server's RequestResponse log, on a
// Metadata-level copy of it, and on a copy without the garbage collector's
// and the namespace controller's requests; asked about one object
// (TYPE/NAME), it must give that object's chain. Replay a batch with
//
//	go test . -run TestPostmortemRandom -pm-seed N
var (
	pmSeedFlag    = flag.Int64("pm-seed", 0, "run only this TestPostmortemRandom batch seed (0: seeds 1, 2 and 3, and a time-based one with -pm-fresh)")
	pmSeedsFlag   = flag.String("pm-seeds", "", "comma-separated TestPostmortemRandom batch seeds (instead of the default set)")
	pmObjectsFlag = flag.Int("pm-objects", 110, "TestPostmortemRandom: at least this many objects per batch")
	pmFreshFlag   = flag.Bool("pm-fresh", false, "TestPostmortemRandom: also run one time-based seed (logged)")
	pmLogsFlag    = flag.String("pm-logs", "all", "TestPostmortemRandom: the logs kgc reads: all (the RequestResponse log, its Metadata-level copy and its copy without the controllers' requests), or RequestResponse")
	pmQueryFlag   = flag.Int("pm-queries", -1, "TestPostmortemRandom: ask kgc about at most this many objects one by one (TYPE/NAME) per log; -1: every object a chain reached")
)

// The people who act in the batches, each through impersonation.
var pmPeople = []string{"alice", "bob", "carol", "dave", "erin"}

// Finalizers of the batches' objects: holdFinalizer stays (the object is
// left terminating), pmReleaseFinalizer is removed by the test, by update,
// a moment after the object started terminating.
const pmReleaseFinalizer = "kgc.dev/release"

// Kinds of a batch's objects.
const (
	kConfigMap = "ConfigMap"
	kSecret    = "Secret"
	kWidget    = "Widget"
	kGadget    = "Gadget"
	kNamespace = "Namespace"
	kCRD       = "CustomResourceDefinition"
	kSprocket  = "Sprocket" // the batch's own CRD, deleted in a crd world
	// kAPIService is the APIService the API server's autoregister makes
	// for the CRD's group version, and deletes when the CRD goes.
	kAPIService = "APIService"
)

var apiServicesGVR = schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}

// World kinds.
const (
	worldOwners    = "owners"    // owner trees deleted by people, maybe a namespace delete later
	worldNamespace = "namespace" // a namespace with owner trees, deleted by a person
	worldCRD       = "crd"       // instances of the batch's CRD, which a person deletes
)

// pmObj is one object of a batch: how it is made, and once made its
// identity.
type pmObj struct {
	ID     string // w<world>.<name>, stable for a seed
	World  int
	Kind   string
	Second bool // in the world's second namespace
	// Owners are indices of the batch's objects this one's owner
	// references name, with blockOwnerDeletion per reference.
	Owners []int
	Block  []*bool
	// Cross names an object of the world's first namespace whose UID
	// this one (in the second namespace) references as its owner: no
	// owner for the garbage collector, which looks in the dependent's
	// namespace. Ghost references a UID no object ever had.
	Cross int
	Ghost bool
	Fin   string // "", holdFinalizer or pmReleaseFinalizer
	// InAct: created during the window, with the first phase's actions.
	InAct    bool
	Releaser string // who removes pmReleaseFinalizer
	Tree     int    // owner tree in its world (-1: none)

	ns, name, uid string
}

// pmAct is one request a person sends (or the test, creating an InAct
// object).
type pmAct struct {
	Phase  int
	Delay  time.Duration
	Person string
	Verb   string // delete, dryrun, dryrun-collection, create
	Obj    int
	Policy string // "" sends none
	UIDPre bool

	err error
}

type pmWorld struct {
	Kind      string
	Namespace int // index of the world's Namespace object
	Second    int // index of its second Namespace, -1 when none
	ns, ns2   string
}

type pmBatch struct {
	Seed        int64
	Objs        []pmObj
	Worlds      []pmWorld
	Acts        []pmAct
	CRD         int  // index of the batch's CRD object, -1 when none
	APIService  int  // index of its group version's APIService
	CRDCluster  bool // the batch's CRD is cluster-scoped
	crd         framework.CRD
	ghostUIDs   map[int]string
	createdTime map[int]time.Time
	// mu guards the objects' uids and createdTime, set as play creates
	// objects while the releaser reads them.
	mu sync.Mutex
}

var pmPolicies = []string{"", "Background", "Foreground", "Orphan"}

// generatePM builds a batch from a seed: everything random happens here, so
// a seed always describes the same experiment.
func generatePM(seed int64, minObjects int) *pmBatch {
	r := rand.New(rand.NewPCG(uint64(seed), 0x706d72))
	b := &pmBatch{Seed: seed, CRD: -1, ghostUIDs: map[int]string{}, createdTime: map[int]time.Time{}}
	crdWorld := r.IntN(3) // which world holds the CRD (if it comes to that)
	for w := 0; len(b.Objs) < minObjects || w <= crdWorld; w++ {
		kind := worldOwners
		switch {
		case w == crdWorld:
			kind = worldCRD
		case r.IntN(3) == 0:
			kind = worldNamespace
		}
		b.genWorld(r, w, kind)
	}
	return b
}

func (b *pmBatch) add(o pmObj) int {
	b.Objs = append(b.Objs, o)
	return len(b.Objs) - 1
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// finalizer picks an object's finalizer: mostly none.
func (b *pmBatch) finalizer(r *rand.Rand, o *pmObj) {
	switch r.IntN(10) {
	case 0, 1:
		o.Fin = holdFinalizer
	case 2, 3:
		o.Fin = pmReleaseFinalizer
		o.Releaser = pick(r, pmPeople)
	}
}

func (b *pmBatch) genWorld(r *rand.Rand, w int, kind string) {
	world := pmWorld{Kind: kind, Second: -1}
	world.Namespace = b.add(pmObj{ID: fmt.Sprintf("w%d.ns", w), World: w, Kind: kNamespace, Cross: -1, Tree: -1})
	b.Worlds = append(b.Worlds, world)
	if kind == worldCRD {
		b.genCRDWorld(r, w)
		return
	}
	// Keepers: objects no one deletes, second owners of some dependents.
	var keepers []int
	for k := 0; k < 1+r.IntN(3); k++ {
		o := pmObj{ID: fmt.Sprintf("w%d.k%d", w, k), World: w, Kind: pick(r, []string{kConfigMap, kSecret, kWidget}), Cross: -1, Tree: -1}
		b.finalizer(r, &o)
		keepers = append(keepers, b.add(o))
	}
	var trees [][]int
	for t := 0; t < 1+r.IntN(3); t++ {
		trees = append(trees, b.genTree(r, w, t, keepers))
	}
	if kind == worldOwners {
		for _, tree := range trees {
			if r.IntN(7) == 0 {
				continue // a tree no one deletes
			}
			b.Acts = append(b.Acts, pmAct{Phase: 1, Delay: jitter(r), Person: pick(r, pmPeople), Verb: "delete", Obj: tree[0], Policy: pick(r, pmPolicies), UIDPre: r.IntN(2) == 0})
		}
		b.genCross(r, w, trees)
	}
	// A namespace delete: at once in a namespace world; in an owners
	// world sometimes, as a later root, once the first phase settled (so
	// that the two roots' chains never race for an object).
	last := 1
	switch {
	case kind == worldNamespace:
		b.Acts = append(b.Acts, pmAct{Phase: 1, Delay: jitter(r), Person: pick(r, pmPeople), Verb: "delete", Obj: world.Namespace, Policy: pick(r, []string{"", "Background"})})
	case r.IntN(3) == 0:
		last = 2
		b.Acts = append(b.Acts, pmAct{Phase: 2, Delay: jitter(r), Person: pick(r, pmPeople), Verb: "delete", Obj: world.Namespace, Policy: pick(r, []string{"", "Background"})})
	}
	b.genDryRuns(r, w, last)
}

func jitter(r *rand.Rand) time.Duration { return time.Duration(r.IntN(400)) * time.Millisecond }

// genTree makes an owner tree: a root and dependents, each owned by an
// earlier object of the tree (sometimes two), sometimes also by a keeper.
func (b *pmBatch) genTree(r *rand.Rand, w, t int, keepers []int) []int {
	kinds := []string{kConfigMap, kConfigMap, kSecret, kWidget, kWidget, kGadget}
	root := pmObj{ID: fmt.Sprintf("w%d.t%d.o0", w, t), World: w, Kind: pick(r, kinds), Cross: -1, Tree: t}
	b.finalizer(r, &root)
	tree := []int{b.add(root)}
	for d := 1; d <= r.IntN(7); d++ {
		o := pmObj{ID: fmt.Sprintf("w%d.t%d.o%d", w, t, d), World: w, Kind: pick(r, kinds), Cross: -1, Tree: t}
		b.finalizer(r, &o)
		// A cluster-scoped dependent of a namespaced owner is a hazard the
		// GC never resolves; a Gadget is owned by Gadgets only.
		var cands []int
		for _, i := range tree {
			if o.Kind != kGadget || b.Objs[i].Kind == kGadget {
				cands = append(cands, i)
			}
		}
		if len(cands) == 0 {
			o.Kind = kConfigMap
			cands = tree
		}
		first := pick(r, cands)
		o.Owners, o.Block = []int{first}, []*bool{pickBool(r)}
		if second := pick(r, cands); second != first && r.IntN(4) == 0 {
			o.Owners, o.Block = append(o.Owners, second), append(o.Block, pickBool(r))
		}
		if o.Kind != kGadget && r.IntN(7) == 0 {
			o.Owners, o.Block = append(o.Owners, pick(r, keepers)), append(o.Block, pickBool(r))
		}
		tree = append(tree, b.add(o))
	}
	return tree
}

// genCross adds, created during the window, dependents whose owner
// reference names an object of the first namespace from the world's second
// namespace, and dependents of a UID that never existed: the garbage
// collector deletes them at once, on its own.
func (b *pmBatch) genCross(r *rand.Rand, w int, trees [][]int) {
	var owners []int
	for _, tree := range trees {
		for _, i := range tree {
			if b.Objs[i].Kind != kGadget {
				owners = append(owners, i)
			}
		}
	}
	if len(owners) > 0 && r.IntN(5) < 2 {
		world := &b.Worlds[w]
		world.Second = b.add(pmObj{ID: fmt.Sprintf("w%d.ns2", w), World: w, Kind: kNamespace, Second: true, Cross: -1, Tree: -1})
		for k := 0; k < 1+r.IntN(2); k++ {
			o := pmObj{ID: fmt.Sprintf("w%d.x%d", w, k), World: w, Kind: pick(r, []string{kConfigMap, kSecret, kWidget}), Second: true, Cross: pick(r, owners), InAct: true, Tree: -1}
			b.finalizer(r, &o)
			b.Acts = append(b.Acts, pmAct{Phase: 1, Delay: jitter(r), Verb: "create", Obj: b.add(o)})
		}
	}
	if r.IntN(4) == 0 {
		o := pmObj{ID: fmt.Sprintf("w%d.ghost", w), World: w, Kind: pick(r, []string{kConfigMap, kSecret, kWidget}), Cross: -1, Ghost: true, InAct: true, Tree: -1}
		b.finalizer(r, &o)
		b.Acts = append(b.Acts, pmAct{Phase: 1, Delay: jitter(r), Verb: "create", Obj: b.add(o)})
	}
}

// genDryRuns adds server dry runs of deletes, of any object of the world
// or of a collection, by anyone: none may ever count as a deletion. Most
// are sent as kubectl sends them (dryRun=All in the URI, which a
// Metadata-level log keeps); some as kgc apply does (in DeleteOptions,
// which only the request body holds): those only of keepers that own
// nothing in a world whose namespace stays, so that a Metadata-level log
// with the after snapshot still shows that nothing happened to them.
func (b *pmBatch) genDryRuns(r *rand.Rand, w, last int) {
	var objs, quiet []int
	owned := map[int]bool{}
	for _, o := range b.Objs {
		for _, ow := range o.Owners {
			owned[ow] = true
		}
	}
	for i, o := range b.Objs {
		if o.World != w || o.InAct {
			continue
		}
		objs = append(objs, i)
		if o.Tree < 0 && !owned[i] && (o.Kind == kConfigMap || o.Kind == kSecret || o.Kind == kWidget) && b.Worlds[w].Kind != worldNamespace && last == 1 {
			quiet = append(quiet, i)
		}
	}
	for k := 0; k < r.IntN(3); k++ {
		ph := 1
		if last == 2 && r.IntN(2) == 0 {
			ph = 2
		}
		a := pmAct{Phase: ph, Delay: jitter(r), Person: pick(r, pmPeople), Verb: "dryrun", Obj: pick(r, objs), Policy: pick(r, pmPolicies)}
		switch k := r.IntN(5); {
		case k == 0:
			a.Verb = "dryrun-collection"
		case k == 1 && len(quiet) > 0:
			a.Verb, a.Obj = "dryrun-body", pick(r, quiet)
		}
		b.Acts = append(b.Acts, a)
	}
}

// genCRDWorld: the batch's own CRD (namespaced or cluster-scoped), its
// instances (some held, some released later), and keepers; a person
// deletes the CRD, maybe after someone's dry run of it.
func (b *pmBatch) genCRDWorld(r *rand.Rand, w int) {
	b.CRDCluster = r.IntN(3) == 0
	b.CRD = b.add(pmObj{ID: fmt.Sprintf("w%d.crd", w), World: w, Kind: kCRD, Cross: -1, Tree: -1})
	b.APIService = b.add(pmObj{ID: fmt.Sprintf("w%d.apiservice", w), World: w, Kind: kAPIService, Cross: -1, Tree: -1})
	var keepers []int
	for k := 0; k < 1+r.IntN(2); k++ {
		keepers = append(keepers, b.add(pmObj{ID: fmt.Sprintf("w%d.k%d", w, k), World: w, Kind: pick(r, []string{kConfigMap, kSecret}), Cross: -1, Tree: -1}))
	}
	for k := 0; k < 3+r.IntN(5); k++ {
		o := pmObj{ID: fmt.Sprintf("w%d.i%d", w, k), World: w, Kind: kSprocket, Cross: -1, Tree: -1}
		b.finalizer(r, &o)
		if !b.CRDCluster && r.IntN(3) == 0 {
			o.Owners, o.Block = []int{pick(r, keepers)}, []*bool{pickBool(r)}
		}
		b.add(o)
	}
	if r.IntN(2) == 0 {
		b.Acts = append(b.Acts, pmAct{Phase: 1, Person: pick(r, pmPeople), Verb: "dryrun", Obj: b.CRD, Policy: pick(r, []string{"", "Background", "Foreground"})})
	}
	b.Acts = append(b.Acts, pmAct{Phase: 1, Delay: 100*time.Millisecond + jitter(r), Person: pick(r, pmPeople), Verb: "delete", Obj: b.CRD, Policy: pick(r, []string{"", "Background"})})
	b.genDryRuns(r, w, 1)
}

// String describes the batch, to replay or reason about a failure.
func (b *pmBatch) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "batch seed %d: %d objects in %d worlds\n", b.Seed, len(b.Objs), len(b.Worlds))
	for w, world := range b.Worlds {
		fmt.Fprintf(&s, "world w%d (%s) namespace %s", w, world.Kind, world.ns)
		if world.ns2 != "" {
			fmt.Fprintf(&s, ", second namespace %s", world.ns2)
		}
		s.WriteString("\n")
		for i, o := range b.Objs {
			if o.World == w {
				fmt.Fprintf(&s, "  %s\n", b.describe(i))
			}
		}
		for _, a := range b.Acts {
			if b.Objs[a.Obj].World == w {
				fmt.Fprintf(&s, "  %s\n", b.describeAct(a))
			}
		}
	}
	return s.String()
}

func (b *pmBatch) describe(i int) string {
	o := b.Objs[i]
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s %s uid=%s", o.ID, o.Kind, b.where(i), o.uid)
	for k, ow := range o.Owners {
		fmt.Fprintf(&s, " owner=%s{b=%s}", b.Objs[ow].ID, boolPtrString(o.Block[k]))
	}
	if o.Cross >= 0 {
		fmt.Fprintf(&s, " owner=%s's uid, from another namespace", b.Objs[o.Cross].ID)
	}
	if o.Ghost {
		fmt.Fprintf(&s, " owner=ghost uid %s", b.ghostUIDs[i])
	}
	if o.Fin != "" {
		fmt.Fprintf(&s, " finalizer=%s", o.Fin)
		if o.Fin == pmReleaseFinalizer {
			fmt.Fprintf(&s, " (removed by %s)", o.Releaser)
		}
	}
	if o.InAct {
		s.WriteString(" created in the window")
	}
	return s.String()
}

func (b *pmBatch) describeAct(a pmAct) string {
	var s strings.Builder
	fmt.Fprintf(&s, "phase %d +%s: ", a.Phase, a.Delay)
	switch a.Verb {
	case "create":
		fmt.Fprintf(&s, "the test creates %s", b.Objs[a.Obj].ID)
	case "dryrun-collection":
		fmt.Fprintf(&s, "%s dry-runs (dryRun=All in the URI) deletecollection of configmaps in %s's namespace", a.Person, b.Objs[a.Obj].ID)
	case "dryrun":
		fmt.Fprintf(&s, "%s dry-runs (dryRun=All in the URI) a delete of %s %s policy=%q", a.Person, b.Objs[a.Obj].Kind, b.Objs[a.Obj].ID, a.Policy)
	case "dryrun-body":
		fmt.Fprintf(&s, "%s dry-runs (dryRun in DeleteOptions) a delete of %s %s policy=%q", a.Person, b.Objs[a.Obj].Kind, b.Objs[a.Obj].ID, a.Policy)
	default:
		fmt.Fprintf(&s, "%s %ss %s %s policy=%q uidPrecondition=%v", a.Person, a.Verb, b.Objs[a.Obj].Kind, b.Objs[a.Obj].ID, a.Policy, a.UIDPre)
	}
	if a.err != nil {
		fmt.Fprintf(&s, " (failed: %v)", a.err)
	}
	return s.String()
}

// where is the object's namespace/name, as kubectl names it.
func (b *pmBatch) where(i int) string {
	o := b.Objs[i]
	if o.ns != "" {
		return o.ns + "/" + o.name
	}
	return o.name
}

// gvr and typeArg of an object of the batch.
func (b *pmBatch) gvr(i int) schema.GroupVersionResource {
	switch b.Objs[i].Kind {
	case kConfigMap:
		return framework.ConfigMaps
	case kSecret:
		return framework.Secrets
	case kWidget:
		return randWidget.GVR()
	case kGadget:
		return randGadget.GVR()
	case kNamespace:
		return framework.Namespaces
	case kCRD:
		return framework.CRDResource
	case kAPIService:
		return apiServicesGVR
	default:
		return b.crd.GVR()
	}
}

func (b *pmBatch) typeArg(i int) string {
	switch b.Objs[i].Kind {
	case kConfigMap:
		return "configmap"
	case kSecret:
		return "secret"
	case kWidget:
		return randWidget.TypeArg()
	case kGadget:
		return randGadget.TypeArg()
	case kNamespace:
		return "namespace"
	case kCRD:
		return "customresourcedefinition"
	case kAPIService:
		return "apiservice"
	default:
		return b.crd.TypeArg()
	}
}
