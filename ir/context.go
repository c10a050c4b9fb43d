package ir

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Context owns the dialect registry and uniques types and attributes. It is
// safe for concurrent use: passes running on isolated ops in parallel and the
// parallel parser share one Context.
type Context struct {
	mu       sync.RWMutex
	types    map[uniqueKey]Type
	attrs    map[uniqueKey]Attribute
	byParts  identityTable[IdentityKeyed] // types and attributes uniqued by their parts (identity_keys.go)
	dialects map[string]*Dialect
	ops      map[string]*OpDef

	// AllowUnregisteredDialects lets ops, types and attributes of unknown
	// dialects through (mlir-opt's --allow-unregistered-dialect).
	AllowUnregisteredDialects bool

	// DisableMultithreading makes ParallelFor run on its caller alone
	// (mlir-opt's --mlir-disable-threading): the verifier then checks
	// sibling functions one after another.
	DisableMultithreading bool

	// Frequent builtin types, uniqued once.
	index   *IndexType
	none    *NoneType
	floats  [numFloatKinds]*FloatType
	ints    [3][65]*IntegerType
	unit    *UnitAttr
	boolean [2]*IntegerAttr
	unknown *UnknownLoc

	resources   map[string]Resource
	diagHandler DiagnosticHandler
	// sources holds the text locations point into, for SourceName.
	sources *SourceMgr

	// tables unique the most frequent values without printing them.
	tables uniqueTables

	// symbols caches the symbol tables that lookups build (symbol.go).
	symbols symbolTableCache

	// passed holds the keys of checks that passed (CheckOnce).
	passed sync.Map
}

// CheckOnce runs check unless a check under key has passed before in this
// context, and records key when it passes. key must be a comparable value
// made of what the check's verdict depends on, all of it immutable: the
// context's uniqued types and attributes, a target. A verifier that costs
// more than the walk around it (an exchange schedule checked word by word)
// then runs once per distinct input however often the IR is verified
// after passes, and one that fails runs again each time, so that its
// diagnostic is the same.
func (c *Context) CheckOnce(key any, check func() error) error {
	if _, ok := c.passed.Load(key); ok {
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	c.passed.Store(key, struct{}{})
	return nil
}

type uniqueKey struct {
	kind reflect.Type
	key  string
}

// Keyed lets a type or attribute supply its own uniquing key instead of its
// printed form (dense data, for instance, keys on raw bytes).
type Keyed interface{ UniqueKey() string }

// NewContext returns a context with the builtin dialect registered.
func NewContext() *Context {
	c := &Context{
		types:    map[uniqueKey]Type{},
		attrs:    map[uniqueKey]Attribute{},
		dialects: map[string]*Dialect{},
		ops:      map[string]*OpDef{},
	}
	c.index = UniqueType(c, &IndexType{})
	c.none = UniqueType(c, &NoneType{})
	for k := FloatKind(0); k < numFloatKinds; k++ {
		c.floats[k] = UniqueType(c, &FloatType{Kind: k})
	}
	for s := range c.ints {
		for w := range c.ints[s] {
			c.ints[s][w] = UniqueType(c, &IntegerType{Width: w, Signedness: Signedness(s)})
		}
	}
	c.unit = UniqueAttr(c, &UnitAttr{})
	c.boolean[0] = c.IntegerAttr(c.I(1), 0)
	c.boolean[1] = c.IntegerAttr(c.I(1), 1)
	c.unknown = UniqueAttr(c, &UnknownLoc{})
	c.MustRegisterDialect(Builtin)
	return c
}

func keyOf(v any, print func(*AsmPrinter)) uniqueKey {
	if k, ok := v.(Keyed); ok {
		return uniqueKey{reflect.TypeOf(v), k.UniqueKey()}
	}
	p := AsmPrinter{identityKeys: true}
	print(&p)
	return uniqueKey{reflect.TypeOf(v), p.String()}
}

// UniqueType returns the context's one instance equal to t, storing t if it
// is the first. Dialects construct their types this way.
func UniqueType[T Type](c *Context, t T) T {
	if u, ok := c.uniqueTypeByTable(t); ok {
		return u.(T)
	}
	if k, ok := any(t).(IdentityKeyed); ok {
		return internByParts(c, k).(T)
	}
	return intern[Type](c, c.types, keyOf(t, t.Print), t).(T)
}

// UniqueAttr is UniqueType for attributes.
func UniqueAttr[T Attribute](c *Context, a T) T {
	if u, ok := c.uniqueByTable(a); ok {
		return u.(T)
	}
	if k, ok := any(a).(IdentityKeyed); ok {
		return internByParts(c, k).(T)
	}
	return intern[Attribute](c, c.attrs, keyOf(a, a.Print), a).(T)
}

// intern returns table's value for k, storing v there if k is new. Reads
// take the shared lock only, so parallel parsers and passes rarely wait.
func intern[V any](c *Context, table map[uniqueKey]V, k uniqueKey, v V) V {
	c.mu.RLock()
	old, ok := table[k]
	c.mu.RUnlock()
	if ok {
		return old
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := table[k]; ok {
		return old
	}
	table[k] = v
	return v
}

// ---- Builtin type constructors ----

// IntegerType returns iN, siN or uiN.
func (c *Context) IntegerType(width int, s Signedness) *IntegerType {
	if width >= 0 && width <= 64 {
		return c.ints[s][width]
	}
	return UniqueType(c, &IntegerType{Width: width, Signedness: s})
}

// I returns the signless integer type of the given width.
func (c *Context) I(width int) *IntegerType { return c.IntegerType(width, Signless) }

func (c *Context) Index() *IndexType                 { return c.index }
func (c *Context) None() *NoneType                   { return c.none }
func (c *Context) Float(k FloatKind) *FloatType      { return c.floats[k] }
func (c *Context) F16() *FloatType                   { return c.floats[F16] }
func (c *Context) BF16() *FloatType                  { return c.floats[BF16] }
func (c *Context) F32() *FloatType                   { return c.floats[F32] }
func (c *Context) F64() *FloatType                   { return c.floats[F64] }
func (c *Context) Complex(elem Type) *ComplexType    { return UniqueType(c, &ComplexType{Elem: elem}) }
func (c *Context) Tuple(types ...Type) *TupleType    { return UniqueType(c, &TupleType{Types: types}) }
func (c *Context) Opaque(d, body string) *OpaqueType { return UniqueType(c, &OpaqueType{d, body}) }

// Function returns the function type; it keeps copies of inputs and
// results, made only when the type is new.
func (c *Context) Function(inputs, results []Type) *FunctionType {
	return internByPartsCopy(c, &FunctionType{Inputs: inputs, Results: results}, func() IdentityKeyed {
		all := make([]Type, len(inputs)+len(results))
		copy(all, inputs)
		copy(all[len(inputs):], results)
		return &FunctionType{Inputs: all[:len(inputs):len(inputs)], Results: all[len(inputs):]}
	}).(*FunctionType)
}

// Tensor returns a ranked tensor type without encoding.
func (c *Context) Tensor(shape []int64, elem Type) *RankedTensorType {
	return c.TensorWithEncoding(shape, elem, nil)
}

func (c *Context) TensorWithEncoding(shape []int64, elem Type, enc Attribute) *RankedTensorType {
	return c.uniqueTensor(shape, elem, enc)
}

func (c *Context) UnrankedTensor(elem Type) *UnrankedTensorType {
	return UniqueType(c, &UnrankedTensorType{Elem: elem})
}

func (c *Context) MemRef(shape []int64, elem Type, layout, space Attribute) *MemRefType {
	return UniqueType(c, &MemRefType{Dims: shape, Elem: elem, Layout: layout, MemorySpace: space})
}

func (c *Context) UnrankedMemRef(elem Type, space Attribute) *UnrankedMemRefType {
	return UniqueType(c, &UnrankedMemRefType{Elem: elem, MemorySpace: space})
}

// Vector returns a vector type; scalable may be nil.
func (c *Context) Vector(shape []int64, scalable []bool, elem Type) *VectorType {
	any := false
	for _, s := range scalable {
		any = any || s
	}
	if !any {
		scalable = nil
	}
	return UniqueType(c, &VectorType{Dims: shape, Scalable: scalable, Elem: elem})
}

// ---- Registry ----

// RegisterDialect adds a dialect and its ops. Names must be new and non-empty.
//
// A dialect and its op definitions are declared once per program (package
// variables of the dialect's package) and may be registered in any number
// of contexts: op definitions are identities (op.Is(tensor.Matmul)), so
// every context shares them. The first registration links each definition
// to its dialect; a definition that another dialect already claims is an
// error.
func (c *Context) RegisterDialect(d *Dialect) error {
	if d.Name == "" {
		return fmt.Errorf("dialect with empty name")
	}
	if err := d.link(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.dialects[d.Name]; dup {
		return fmt.Errorf("dialect %q registered twice", d.Name)
	}
	for _, op := range d.Ops {
		if _, dup := c.ops[op.Name]; dup {
			return fmt.Errorf("op %q registered twice", op.Name)
		}
	}
	c.dialects[d.Name] = d
	for _, op := range d.Ops {
		c.ops[op.Name] = op
	}
	return nil
}

// linkMu orders the one-time linking of op definitions to their dialect
// before any use of them through a context that registered the dialect.
var linkMu sync.Mutex

// link checks d's declarations and records d in its op definitions, once.
func (d *Dialect) link() error {
	linkMu.Lock()
	defer linkMu.Unlock()
	if d.linked {
		return nil
	}
	names := map[string]bool{}
	for _, op := range d.Ops {
		if op == nil {
			return fmt.Errorf("dialect %q lists a nil op definition", d.Name)
		}
		if err := op.check(d.Name); err != nil {
			return err
		}
		if err := op.checkInterfaces(); err != nil {
			return err
		}
		if names[op.Name] {
			return fmt.Errorf("op %q declared twice in dialect %q", op.Name, d.Name)
		}
		names[op.Name] = true
		if op.dialect != nil && op.dialect != d {
			return fmt.Errorf("op %q is declared by two dialects", op.Name)
		}
	}
	if err := d.checkAttrsAndTypes(); err != nil {
		return err
	}
	for _, op := range d.Ops {
		op.dialect = d
	}
	d.linked = true
	return nil
}

// MustRegisterDialect is RegisterDialect for program setup, where a bad
// registration is a programming error.
func (c *Context) MustRegisterDialect(d *Dialect) {
	if err := c.RegisterDialect(d); err != nil {
		panic("BUG: " + err.Error())
	}
}

// Dialect returns a registered dialect or nil.
func (c *Context) Dialect(name string) *Dialect {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.dialects[name]
}

// Dialects lists the registered dialects by name.
func (c *Context) Dialects() []*Dialect {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Dialect, 0, len(c.dialects))
	for _, d := range c.dialects {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// OpDef returns the definition of a registered op, or nil.
func (c *Context) OpDef(name string) *OpDef {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ops[name]
}

// DialectNamespace is the part of an op or attribute name before the first dot.
func DialectNamespace(name string) string {
	d, _, _ := strings.Cut(name, ".")
	return d
}
