// Package schedule schedules one exchange phase: given transfers (a source
// tile, one or more destination tiles, a number of 32-bit words), it
// assigns every word a cycle so that no tile sends more than one word or
// receives more than one word in a cycle, and reports the horizon beside
// the phase's lower bound.
//
// The lower bound is the largest number of words any tile sends (a
// multicast word once) or receives. For a phase of unicast transfers the
// bound is always reached: the phase is a bipartite multigraph, senders ×
// receivers, and König's theorem colours it in as many cycles as its
// largest degree. The scheduler computes that colouring as a
// Birkhoff–von Neumann decomposition of the regularised word matrix: pad
// every sender and receiver to the bound with idle edges, keep a perfect
// matching of the edges that still have words, run it until its shortest
// edge is spent, and repair the matching with one augmenting path per
// spent edge. An edge stays matched until it is spent unless a repair path
// flips it, so a long transfer stays in few segments. The work is
// O(E log E) plus the repair paths, which are short in practice.
//
// A multicast word reaches all its receivers in one cycle, which makes the
// problem hypergraph colouring; the scheduler tries the unicast expansion
// (each receiver its own copy) when that does not raise the bound, and a
// first-fit schedule of the words otherwise, keeping the shorter, and
// reports the gap to the bound.
//
// On a fabric whose tiles share an exchange bus in pairs (see Fabric), a
// word that both tiles of a pair receive takes one of the pair's two
// ports, so a pair can take two words per cycle. Where a phase has such
// words and a gap, the scheduler also tries the group matching with each
// group of pairs as two receivers (its even and its odd ports) and, where
// that misses the bound, first fit with the pairs' ports; it keeps the
// paired schedule when it is shorter than the best ordinary one (the
// reference compiler's "paired" schedules).
package schedule

import (
	"cmp"
	"container/heap"
	"fmt"
	"math/bits"
	"slices"

	"github.com/ipuir/ipuir/numeric"
)

// Transfer is one piece of data a tile sends to one or more tiles.
type Transfer struct {
	Src   int32
	Dst   []int32
	Words int64
}

// Segment sends Words consecutive words of transfer Transfer, one per
// cycle from cycle Start, each word reaching every destination of the
// transfer in the same cycle.
type Segment struct {
	Transfer     int
	Start, Words int64
}

// Kind names how a phase was scheduled.
type Kind string

const (
	// Matching: the Birkhoff–von Neumann decomposition of unicast words.
	Matching Kind = "matching"
	// ExpandedMatching: multicasts expanded to unicast copies, then Matching.
	ExpandedMatching Kind = "matching-expanded"
	// GroupMatching: receivers that share multicasts merged into groups
	// (each receiving one word per cycle), then Matching of senders ×
	// groups; every multicast word is sent once.
	GroupMatching Kind = "matching-grouped"
	// PairedGroupMatching: GroupMatching where groups whose every word
	// reaches both tiles of each pair it reaches take two words per cycle
	// (see Fabric).
	PairedGroupMatching Kind = "matching-paired"
	// FirstFit: every word at the earliest cycle its sender and receivers
	// are free.
	FirstFit Kind = "first-fit"
	// PairedFirstFit: FirstFit with the pairs' ports (see Fabric).
	PairedFirstFit Kind = "first-fit-paired"
	// Empty: nothing to send.
	Empty Kind = "empty"
)

// Kinds lists every kind, as the exchange dialect's schedules spell them.
var Kinds = []Kind{Matching, ExpandedMatching, GroupMatching, PairedGroupMatching, FirstFit, PairedFirstFit, Empty}

// Result is a phase's schedule.
type Result struct {
	// Transfers are the transfers the segments send: the phase's own, or,
	// when Kind is ExpandedMatching, each multicast's unicast copies (one
	// per receiver, in order), which the exchange must then send instead.
	Transfers []Transfer
	Segments  []Segment
	// Horizon is the cycle after the last word.
	Horizon int64
	// InitialHorizon is the first method's horizon (the one tried first for
	// the phase's kind), which Horizon improves on or equals.
	InitialHorizon int64
	// LowerBound is the bound of Transfers on the fabric (see LowerBound),
	// which is what the exchange dialect's verifier recomputes.
	LowerBound int64
	// OrdinaryHorizon is the best horizon with every tile receiving alone;
	// PairedHorizon, when the fabric has pairs, some word reaches both
	// tiles of one and the bound was below OrdinaryHorizon, is the best
	// paired schedule's (group matching or first fit), else 0. Horizon is
	// the smaller.
	OrdinaryHorizon, PairedHorizon int64

	Kind Kind
	// ReceiveConfigurations is the number of times a tile starts receiving
	// a new segment, over all tiles: the receive set-ups the phase's
	// exchange code holds.
	ReceiveConfigurations int
}

// Gap is Horizon − LowerBound.
func (r *Result) Gap() int64 { return r.Horizon - r.LowerBound }

// Check validates transfers against a tile count: tiles in range, at
// least one destination, no tile receiving its own send, positive words.
func Check(transfers []Transfer, tiles int) error {
	seen := make([]int32, max(tiles, 0)) // by tile: the transfer that last named it, plus one
	for i, t := range transfers {
		if t.Src < 0 || int(t.Src) >= tiles {
			return fmt.Errorf("transfer %d: source tile %d is not one of the %d tiles", i, t.Src, tiles)
		}
		if len(t.Dst) == 0 {
			return fmt.Errorf("transfer %d: no destination", i)
		}
		if t.Words <= 0 {
			return fmt.Errorf("transfer %d: %d words (want at least 1)", i, t.Words)
		}
		for _, d := range t.Dst {
			switch {
			case d < 0 || int(d) >= tiles:
				return fmt.Errorf("transfer %d: destination tile %d is not one of the %d tiles", i, d, tiles)
			case d == t.Src:
				return fmt.Errorf("transfer %d: tile %d sends to itself", i, d)
			case seen[d] == int32(i+1):
				return fmt.Errorf("transfer %d: destination tile %d listed twice", i, d)
			}
			seen[d] = int32(i + 1)
		}
	}
	return nil
}

// Schedule schedules a phase on a fabric.
func Schedule(transfers []Transfer, f Fabric) (Result, error) {
	if err := Check(transfers, f.Tiles); err != nil {
		return Result{}, err
	}
	if len(transfers) == 0 {
		return Result{Kind: Empty}, nil
	}
	r := ordinary(transfers, f.Tiles)
	r.OrdinaryHorizon = r.Horizon
	lb := LowerBound(transfers, f)
	if lb < r.Horizon && f.takesWholePairs(transfers) {
		p := paired(transfers, f, lb)
		r.PairedHorizon = p.Horizon
		if p.Horizon < r.Horizon {
			p.InitialHorizon, p.OrdinaryHorizon, p.PairedHorizon = r.InitialHorizon, r.Horizon, p.Horizon
			return p, nil
		}
	}
	r.LowerBound = lb
	if r.Kind == ExpandedMatching {
		// The phase is its copies now, and its bound theirs.
		r.LowerBound = LowerBound(r.Transfers, f)
	}
	return r, nil
}

// paired is the best schedule that uses the fabric's pairs: the paired
// group matching, and where that misses the bound or finds no group,
// first fit with the pairs' ports.
func paired(transfers []Transfer, f Fabric, lb int64) Result {
	best, ok := groupMatching(transfers, f, true)
	if ok {
		best = finish(best, transfers, lb)
		if best.Horizon == lb {
			return best
		}
	}
	ff := firstFit(transfers, f)
	ff.Kind = PairedFirstFit
	if ff = finish(ff, transfers, lb); !ok || ff.Horizon < best.Horizon {
		best = ff
	}
	return best
}

// ordinary schedules a phase with every tile receiving alone.
func ordinary(transfers []Transfer, tiles int) Result {
	lb := LowerBound(transfers, Unpaired(tiles))
	multicast := false
	for _, t := range transfers {
		multicast = multicast || len(t.Dst) > 1
	}
	if !multicast {
		r := matching(transfers, lb)
		r.Kind = Matching
		r = finish(r, transfers, lb)
		r.InitialHorizon = r.Horizon
		return r
	}
	// Grouped: receivers linked by shared multicasts (the replicas of one
	// shard, typically) receive as one; when no group receives more than
	// the bound, the phase ends on the bound with every word sent once.
	best, _ := groupMatching(transfers, Unpaired(tiles), false)
	initial := best.Horizon
	if best.Horizon == lb {
		r := finish(best, transfers, lb)
		r.InitialHorizon = initial
		return r
	}
	// Expanded: one unicast copy per receiver.
	var expanded []Transfer
	for _, t := range transfers {
		for _, d := range t.Dst {
			expanded = append(expanded, Transfer{Src: t.Src, Dst: []int32{d}, Words: t.Words})
		}
	}
	expBound := LowerBound(expanded, Unpaired(tiles))
	if expBound > lb {
		ff := firstFit(transfers, Unpaired(tiles))
		ff.Kind = FirstFit
		if ff = finish(ff, transfers, lb); ff.Horizon < best.Horizon {
			best = ff
		}
	}
	if expBound < best.Horizon {
		m := matching(expanded, expBound)
		m.Kind = ExpandedMatching
		m = finish(m, expanded, lb)
		m.InitialHorizon = initial
		return m
	}
	best = finish(best, transfers, lb)
	best.InitialHorizon = initial
	return best
}

// groupMatching merges receivers that share a transfer into groups
// (union-find over each transfer's receivers) and schedules senders ×
// groups by Matching, a group receiving one word per cycle, so each of its
// tiles does. The horizon is the larger of the busiest sender's and the
// busiest receiver's words.
//
// With paired, a group of pairs takes up to two words per cycle: it is two
// receivers, the even tiles' ports and the odd tiles' ports. A word every
// pair of the group it reaches takes whole (both tiles) goes on either; a
// word that reaches, beside whole pairs, only even tiles alone goes on the
// even ports, and likewise for odd. Words that are split between the two
// are balanced, a transfer split between them sending its words in the
// order the matching runs its halves (never at once: they share a
// sender). A group with a word that needs both an even and an odd port
// alone stays one receiver; paired without a group whose words the two
// ports can share reports false.
func groupMatching(transfers []Transfer, f Fabric, paired bool) (Result, bool) {
	group := receiverGroups(transfers, f.Tiles)
	var class []portClass
	twoPorts := make([]bool, f.Tiles)
	// Words per group on either port, the even ports and the odd ports.
	either, even, odd := make([]int64, f.Tiles), make([]int64, f.Tiles), make([]int64, f.Tiles)
	if paired {
		class = make([]portClass, len(transfers))
		open := make([]bool, f.Tiles) // a word of the group needs both ports
		mark := make([]int32, f.Tiles)
		for i, t := range transfers {
			g := group[i]
			class[i] = f.portsOf(t, mark, int32(i+1))
			switch class[i] {
			case onEither:
				either[g] += t.Words
			case onEven:
				even[g] += t.Words
			case onOdd:
				odd[g] += t.Words
			case onBoth:
				open[g] = true
			}
		}
		for g := range twoPorts {
			twoPorts[g] = !open[g] && (either[g] > 0 || (even[g] > 0 && odd[g] > 0))
		}
		if !slices.Contains(twoPorts, true) {
			return Result{}, false
		}
	}
	// The odd ports of group g are receiver g + f.Tiles. onEvenPorts[g] is
	// how many either-port words go on the even ports, placed first.
	onEvenPorts := make([]int64, f.Tiles)
	for g := range twoPorts {
		if twoPorts[g] {
			onEvenPorts[g] = min(max(numeric.CeilDiv(odd[g]+either[g]-even[g], 2), 0), either[g])
		}
	}
	pieces := make([]Transfer, 0, len(transfers))
	origin := make([]int, 0, len(transfers))
	add := func(i int, dst int32, words int64) {
		if words > 0 {
			pieces = append(pieces, Transfer{Src: transfers[i].Src, Dst: []int32{dst}, Words: words})
			origin = append(origin, i)
		}
	}
	oddPorts := func(g int32) int32 { return g + int32(f.Tiles) }
	for i, t := range transfers {
		g := group[i]
		switch {
		case !twoPorts[g] || class[i] == onEven:
			add(i, g, t.Words)
		case class[i] == onOdd:
			add(i, oddPorts(g), t.Words)
		default:
			first := min(t.Words, onEvenPorts[g])
			onEvenPorts[g] -= first
			add(i, g, first)
			add(i, oddPorts(g), t.Words-first)
		}
	}
	// A sender in a group still sends on its own: the two sides of the
	// bipartite graph are distinct, so a tile may send and receive at once.
	bound := LowerBound(pieces, Unpaired(2*f.Tiles))
	r := matching(pieces, bound)
	for k := range r.Segments {
		r.Segments[k].Transfer = origin[r.Segments[k].Transfer]
	}
	r.Kind = GroupMatching
	if paired {
		r.Kind = PairedGroupMatching
	}
	r.Horizon = bound
	return r, true
}

// receiverGroups unites the receivers of each transfer (union-find) and
// returns, per transfer, the group its receivers are in.
func receiverGroups(transfers []Transfer, tiles int) []int32 {
	parent := make([]int32, tiles)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, t := range transfers {
		r := find(t.Dst[0])
		for _, d := range t.Dst[1:] {
			if q := find(d); q != r {
				parent[q] = r
			}
		}
	}
	group := make([]int32, len(transfers))
	for i, t := range transfers {
		group[i] = find(t.Dst[0])
	}
	return group
}

func finish(r Result, transfers []Transfer, lb int64) Result {
	r.Transfers = transfers
	r.LowerBound = lb
	r.Horizon = 0
	for _, s := range r.Segments {
		r.Horizon = max(r.Horizon, s.Start+s.Words)
		r.ReceiveConfigurations += len(transfers[s.Transfer].Dst)
	}
	slices.SortFunc(r.Segments, func(a, b Segment) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		return a.Transfer - b.Transfer
	})
	return r
}

// matching is the Birkhoff–von Neumann decomposition of a unicast phase
// into lb cycles.
func matching(transfers []Transfer, lb int64) Result {
	// Vertices: the tiles that send (left) and receive (right), compacted.
	leftOf := map[int32]int{}
	rightOf := map[int32]int{}
	for _, t := range transfers {
		if _, ok := leftOf[t.Src]; !ok {
			leftOf[t.Src] = len(leftOf)
		}
		if _, ok := rightOf[t.Dst[0]]; !ok {
			rightOf[t.Dst[0]] = len(rightOf)
		}
	}
	n := max(len(leftOf), len(rightOf))
	g := &bipartite{n: n, adj: make([][]int, n)}
	deficitL := make([]int64, n)
	deficitR := make([]int64, n)
	for i := range n {
		deficitL[i], deficitR[i] = lb, lb
	}
	for i, t := range transfers {
		u, v := leftOf[t.Src], rightOf[t.Dst[0]]
		g.addEdge(u, v, t.Words, i)
		deficitL[u] -= t.Words
		deficitR[v] -= t.Words
	}
	// Idle edges make the graph lb-regular (north-west corner rule: at
	// most 2n of them).
	for i, j := 0, 0; i < n && j < n; {
		switch {
		case deficitL[i] == 0:
			i++
		case deficitR[j] == 0:
			j++
		default:
			w := min(deficitL[i], deficitR[j])
			g.addEdge(i, j, w, -1)
			deficitL[i] -= w
			deficitR[j] -= w
		}
	}
	return g.decompose(lb)
}

// bipartite is the regularised phase: n left and n right vertices, edges
// with remaining words.
type bipartite struct {
	n     int
	adj   [][]int // left vertex → edge ids
	edges []edge
	// matchL[u] and matchR[v] are the matched edge ids, or -1.
	matchL, matchR []int
	// visited marks for augmenting searches (epoch-stamped).
	seenR []int
	epoch int
}

type edge struct {
	u, v      int
	remaining int64 // words left at time since (while matched) or now
	transfer  int   // -1 for idle
	since     int64 // when it was last matched
	until     int64 // since + remaining, while matched
	matched   bool
}

func (g *bipartite) addEdge(u, v int, w int64, transfer int) {
	g.adj[u] = append(g.adj[u], len(g.edges))
	g.edges = append(g.edges, edge{u: u, v: v, remaining: w, transfer: transfer})
}

// events orders matched edges by when they run out. Each entry keeps the
// time it was pushed with; an entry whose edge was unmatched (or matched
// again, to run out later) since is stale and skipped.
type event struct {
	until int64
	id    int
}

type events []event

func (h events) Len() int { return len(h) }
func (h events) Less(i, j int) bool {
	if h[i].until != h[j].until {
		return h[i].until < h[j].until
	}
	return h[i].id < h[j].id
}
func (h events) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *events) Push(x any)   { *h = append(*h, x.(event)) }
func (h *events) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (g *bipartite) decompose(lb int64) Result {
	var r Result
	g.matchL = make([]int, g.n)
	g.matchR = make([]int, g.n)
	g.seenR = make([]int, g.n)
	for i := range g.n {
		g.matchL[i], g.matchR[i] = -1, -1
	}
	h := &events{}
	now := int64(0)
	match := func(id int) {
		e := &g.edges[id]
		e.matched, e.since, e.until = true, now, now+e.remaining
		g.matchL[e.u], g.matchR[e.v] = id, id
		heap.Push(h, event{e.until, id})
	}
	// unmatch ends an edge's run at now, recording its segment.
	unmatch := func(id int) {
		e := &g.edges[id]
		if ran := now - e.since; ran > 0 {
			if e.transfer >= 0 {
				r.Segments = append(r.Segments, Segment{Transfer: e.transfer, Start: e.since, Words: ran})
			}
			e.remaining -= ran
		}
		e.matched = false
		if g.matchL[e.u] == id {
			g.matchL[e.u] = -1
		}
		if g.matchR[e.v] == id {
			g.matchR[e.v] = -1
		}
	}
	// augment finds an alternating path from the free left vertex u to a
	// free right vertex and flips it (breadth first, so paths are short).
	parentEdge := make([]int, g.n) // right vertex → the edge that reached it
	var queue []int
	augment := func(u int) bool {
		g.epoch++
		queue = append(queue[:0], u)
		for k := 0; k < len(queue); k++ {
			x := queue[k]
			for a := 0; a < len(g.adj[x]); a++ {
				id := g.adj[x][a]
				e := &g.edges[id]
				if e.remaining <= 0 && !e.matched {
					// Spent: drop it from the list for good.
					last := len(g.adj[x]) - 1
					g.adj[x][a], g.adj[x][last] = g.adj[x][last], g.adj[x][a]
					g.adj[x] = g.adj[x][:last]
					a--
					continue
				}
				if e.matched || g.seenR[e.v] == g.epoch {
					continue
				}
				g.seenR[e.v] = g.epoch
				parentEdge[e.v] = id
				if g.matchR[e.v] >= 0 {
					queue = append(queue, g.edges[g.matchR[e.v]].u)
					continue
				}
				// Flip the path back to u.
				for v := e.v; ; {
					id := parentEdge[v]
					x := g.edges[id].u
					prev := g.matchL[x]
					if prev >= 0 {
						unmatch(prev)
					}
					match(id)
					if x == u {
						return true
					}
					v = g.edges[prev].v
				}
			}
		}
		return false
	}
	// A greedy matching first, then paths for the rest.
	for u := range g.n {
		for _, id := range g.adj[u] {
			if g.matchR[g.edges[id].v] < 0 {
				match(id)
				break
			}
		}
	}
	for u := range g.n {
		if g.matchL[u] < 0 && !augment(u) {
			panic("BUG: schedule: a regular bipartite graph has a perfect matching")
		}
	}
	var free []int
	for now < lb {
		// Run to the first edge that runs out, then repair.
		now = (*h)[0].until
		free = free[:0]
		for h.Len() > 0 && (*h)[0].until == now {
			ev := heap.Pop(h).(event)
			e := &g.edges[ev.id]
			if !e.matched || e.until != ev.until {
				continue // stale
			}
			unmatch(ev.id)
			free = append(free, e.u)
		}
		if now >= lb {
			break
		}
		for _, u := range free {
			if g.matchL[u] < 0 && !augment(u) {
				panic("BUG: schedule: a regular bipartite graph has a perfect matching")
			}
		}
	}
	return r
}

// firstFit places every word of every transfer at the earliest cycle at
// which its sender and all its receive ports are free, the transfers of
// the busiest tiles first; consecutive words of a transfer form one
// segment. A tile sends and receives in the same cycle if it must; with
// pairs, a word both tiles of a pair take needs one of the pair's two
// ports, and one for a tile alone needs that tile's port as well.
func firstFit(transfers []Transfer, f Fabric) Result {
	tiles := f.Tiles
	order := make([]int, len(transfers))
	for i := range order {
		order[i] = i
	}
	// Most constrained first: transfers touching the busiest tiles (whose
	// load is the bound), then the longest.
	send := make([]int64, tiles)
	recv := make([]int64, tiles)
	for _, t := range transfers {
		send[t.Src] += t.Words
		for _, d := range t.Dst {
			recv[d] += t.Words
		}
	}
	pressure := make([]int64, len(transfers))
	for i, t := range transfers {
		p := send[t.Src]
		for _, d := range t.Dst {
			p = max(p, recv[d])
		}
		pressure[i] = p
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(pressure[b], pressure[a]); c != 0 {
			return c
		}
		return cmp.Compare(transfers[b].Words, transfers[a].Words)
	})
	ports := newPorts(f)
	sending := make([]bitset, tiles)
	mark := make([]int32, tiles)
	var takes []take
	var r Result
	for _, i := range order {
		t := transfers[i]
		takes = takes[:0]
		f.coveredPairs(t, mark, int32(i+1), func(d int32, both bool) { takes = append(takes, take{d, both}) })
		c := int64(0)
		for w := int64(0); w < t.Words; w++ {
			for {
				next := sending[t.Src].nextFree(c)
				for _, k := range takes {
					next = ports.nextFree(k, next)
				}
				if next == c {
					break
				}
				c = next
			}
			sending[t.Src].set(c)
			for _, k := range takes {
				ports.use(k, c)
			}
			if n := len(r.Segments); n > 0 && r.Segments[n-1].Transfer == i && r.Segments[n-1].Start+r.Segments[n-1].Words == c {
				r.Segments[n-1].Words++
			} else {
				r.Segments = append(r.Segments, Segment{Transfer: i, Start: c, Words: 1})
			}
			c++
		}
	}
	return r
}

// take is what one word needs of a receiver: tile's own port, or, with
// both, one of the two ports of the pair whose even tile is tile.
type take struct {
	tile int32
	both bool
}

// ports tracks the receive ports' busy cycles for first fit: own[t] the
// cycles t's port takes a word for t alone; by a pair's even tile, one and
// two the cycles its ports take one word, and both.
type ports struct {
	f             Fabric
	own, one, two []bitset
}

func newPorts(f Fabric) *ports {
	return &ports{f: f, own: make([]bitset, f.Tiles), one: make([]bitset, f.Tiles), two: make([]bitset, f.Tiles)}
}

// nextFree is the first cycle at or after c at which the receiver can
// take the word.
func (p *ports) nextFree(k take, c int64) int64 {
	pair := k.tile &^ 1
	switch {
	case k.both:
		return p.two[pair].nextFree(c)
	case p.f.partner(k.tile) < 0:
		return p.own[k.tile].nextFree(c)
	}
	for {
		next := p.two[pair].nextFree(p.own[k.tile].nextFree(c))
		if next == c {
			return c
		}
		c = next
	}
}

func (p *ports) use(k take, c int64) {
	if !k.both {
		p.own[k.tile].set(c)
		if p.f.partner(k.tile) < 0 {
			return
		}
	}
	pair := k.tile &^ 1
	if p.one[pair].isSet(c) {
		p.two[pair].set(c)
	} else {
		p.one[pair].set(c)
	}
}

// bitset marks the busy cycles of one tile.
type bitset []uint64

func (b *bitset) set(c int64) {
	w := int(c / 64)
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (c % 64)
}

func (b bitset) isSet(c int64) bool {
	w := int(c / 64)
	return w < len(b) && b[w]&(1<<(c%64)) != 0
}

// nextFree is the first cycle at or after c not set.
func (b bitset) nextFree(c int64) int64 {
	for w := int(c / 64); w < len(b); w++ {
		free := ^b[w]
		if w == int(c/64) {
			free &= ^uint64(0) << (c % 64)
		}
		if free != 0 {
			return int64(w)*64 + int64(bits.TrailingZeros64(free))
		}
	}
	return max(c, int64(len(b))*64)
}
