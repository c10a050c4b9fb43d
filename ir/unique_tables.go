package ir

import (
	"math"
	"strings"
	"sync"
)

// Typed uniquing tables for the values a parser creates once per op or
// per literal: source locations (every op has one), name locations,
// integer and float attributes, and ranked tensor types.
//
// The general tables of Context key on a reflect.Type and a string (the
// printed form, or a UniqueKey), so each lookup builds and hashes a
// string, and most print. These tables key on fixed-size structs of the
// value's parts instead, so a lookup that finds its value allocates
// nothing; file names are interned so that the many locations of one
// file share one string. UniqueType and UniqueAttr route these kinds here
// too, so that every way of building them yields the same pointer.
//
// They have their own lock: the parser's goroutines look locations up far
// more often than anything else, and need not wait on type lookups.
type uniqueTables struct {
	mu sync.Mutex

	files              map[string]uint32 // interned file names
	fileNames          []string
	lastFile           string // the file of the previous lookup, and its id
	lastFileID         uint32
	fileLocs           map[uint64]*FileLineColLoc         // packed keys (packFileLoc)
	wideFileLocs       map[fileLineColKey]*FileLineColLoc // the rest
	locSlab            []FileLineColLoc
	nameLocs           map[nameLocKey]*NameLoc
	ints               map[intAttrKey]*IntegerAttr
	floats             map[floatAttrKey]*FloatAttr
	tensors            identityTable[*RankedTensorType]
	haveLastFile, init bool
}

type fileLineColKey struct {
	file      uint32
	line, col int
}

type nameLocKey struct {
	name  string
	child Location
}

type intAttrKey struct {
	typ Type
	val int64
}

type floatAttrKey struct {
	typ  *FloatType
	bits uint64 // of the float64 value: NaN payloads and -0 stay distinct
}

// lock takes the tables' lock, making the maps on first use (a Context
// made as a zero value has none).
func (u *uniqueTables) lock() {
	u.mu.Lock()
	if !u.init {
		u.init = true
		u.files = map[string]uint32{}
		u.fileLocs = map[uint64]*FileLineColLoc{}
		u.wideFileLocs = map[fileLineColKey]*FileLineColLoc{}
		u.nameLocs = map[nameLocKey]*NameLoc{}
		u.ints = map[intAttrKey]*IntegerAttr{}
		u.floats = map[floatAttrKey]*FloatAttr{}
	}
}

// fileID interns a file name; the caller holds the lock.
func (u *uniqueTables) fileID(file string) uint32 {
	if u.haveLastFile && file == u.lastFile {
		return u.lastFileID
	}
	id, ok := u.files[file]
	if !ok {
		// A copy, so that a name cut from a larger text does not keep it.
		file = strings.Clone(file)
		id = uint32(len(u.fileNames))
		u.fileNames = append(u.fileNames, file)
		u.files[file] = id
	}
	u.lastFile, u.lastFileID, u.haveLastFile = u.fileNames[id], id, true
	return id
}

// FileLineCol returns a source location.
//
// Every op has one (its position in the file when it names no other), so
// the table is made to be small: a key packs the file, line and column
// into one word where they fit (all but lines past 2^28 or columns past
// 2^16), and the locations are allocated in blocks. That halves what
// 300,000 locations cost.
func (c *Context) FileLineCol(file string, line, col int) *FileLineColLoc {
	u := &c.tables
	u.lock()
	defer u.mu.Unlock()
	id := u.fileID(file)
	if k, ok := packFileLoc(id, line, col); ok {
		l := u.fileLocs[k]
		if l == nil {
			l = u.newFileLoc(id, line, col)
			u.fileLocs[k] = l
		}
		return l
	}
	k := fileLineColKey{id, line, col}
	l := u.wideFileLocs[k]
	if l == nil {
		l = u.newFileLoc(id, line, col)
		u.wideFileLocs[k] = l
	}
	return l
}

// ReserveFileLocations makes room for about n more file locations, so
// that a parser that knows how many lines it reads grows the table once
// instead of rehashing it repeatedly (a fifth of the table's cost on a
// large file).
func (c *Context) ReserveFileLocations(n int) {
	u := &c.tables
	u.lock()
	defer u.mu.Unlock()
	if want := len(u.fileLocs) + n; n > 0 && want > 2*len(u.fileLocs) {
		grown := make(map[uint64]*FileLineColLoc, want)
		for k, v := range u.fileLocs {
			grown[k] = v
		}
		u.fileLocs = grown
	}
}

// packFileLoc packs a location's key into a word: 20 bits of file id, 28
// of line and 16 of column.
func packFileLoc(file uint32, line, col int) (uint64, bool) {
	if file >= 1<<20 || line < 0 || line >= 1<<28 || col < 0 || col >= 1<<16 {
		return 0, false
	}
	return uint64(file)<<44 | uint64(line)<<16 | uint64(col), true
}

func (u *uniqueTables) newFileLoc(file uint32, line, col int) *FileLineColLoc {
	l := &take(&u.locSlab, 1)[0] // in blocks, as an Arena allocates
	*l = FileLineColLoc{File: u.fileNames[file], Line: line, Col: col}
	return l
}

// uniqueNameLoc uniques a name location as given (NameLoc normalises).
func (c *Context) uniqueNameLoc(name string, child Location) *NameLoc {
	u := &c.tables
	u.lock()
	defer u.mu.Unlock()
	k := nameLocKey{name, child}
	l, ok := u.nameLocs[k]
	if !ok {
		name = strings.Clone(name)
		l = &NameLoc{Name: name, Child: child}
		u.nameLocs[nameLocKey{name, child}] = l
	}
	return l
}

// intInTable reports whether t's values of up to 64 bits are uniqued by
// table: integer types up to 64 bits and index.
func intInTable(t Type) bool {
	switch t := t.(type) {
	case *IntegerType:
		return t.Width <= 64
	case *IndexType:
		return true
	}
	return false
}

// normalizeInt64 is NormalizeInt for a type intInTable accepts.
func normalizeInt64(t Type, v int64) int64 {
	it, ok := t.(*IntegerType)
	if !ok || it.Width == 64 {
		return v // index, or a 64-bit integer: already its own width
	}
	if it.Width == 0 {
		return 0
	}
	shift := uint(64 - it.Width)
	if it.Signedness == Unsigned {
		return int64(uint64(v) << shift >> shift)
	}
	return v << shift >> shift
}

// uniqueInt uniques an integer attribute of a type intInTable accepts,
// whose value is already normalised.
func (c *Context) uniqueInt(t Type, v int64) *IntegerAttr {
	u := &c.tables
	u.lock()
	defer u.mu.Unlock()
	k := intAttrKey{t, v}
	a, ok := u.ints[k]
	if !ok {
		a = &IntegerAttr{Typ: t, Int: v}
		u.ints[k] = a
	}
	return a
}

// uniqueFloat uniques a float attribute whose value is already rounded.
func (c *Context) uniqueFloat(t *FloatType, v float64) *FloatAttr {
	u := &c.tables
	u.lock()
	defer u.mu.Unlock()
	k := floatAttrKey{t, math.Float64bits(v)}
	a, ok := u.floats[k]
	if !ok {
		a = &FloatAttr{Typ: t, Val: v}
		u.floats[k] = a
	}
	return a
}

// uniqueTensor uniques a ranked tensor type by its parts, building one
// only when it is new.
func (c *Context) uniqueTensor(shape []int64, elem Type, enc Attribute) *RankedTensorType {
	h := newPartsHash()
	hashTensorParts(&h, shape, elem, enc)
	k := h.Sum()
	u := &c.tables
	u.lock()
	defer u.mu.Unlock()
	t, ok := u.tensors.find(k, func(t *RankedTensorType) bool { return t.hasParts(shape, elem, enc) })
	if !ok {
		t = &RankedTensorType{Dims: append([]int64(nil), shape...), Elem: elem, Encoding: enc}
		u.tensors.insert(k, t)
	}
	return t
}

// uniqueByTable uniques a through its typed table when it has one.
func (c *Context) uniqueByTable(a Attribute) (Attribute, bool) {
	switch a := a.(type) {
	case *FileLineColLoc:
		return c.FileLineCol(a.File, a.Line, a.Col), true
	case *NameLoc:
		return c.uniqueNameLoc(a.Name, a.Child), true
	case *IntegerAttr:
		if a.Big == nil && intInTable(a.Typ) {
			return c.uniqueInt(a.Typ, a.Int), true
		}
	case *FloatAttr:
		if a.Typ != nil {
			return c.uniqueFloat(a.Typ, a.Val), true
		}
	}
	return nil, false
}

// uniqueTypeByTable uniques t through its typed table when it has one.
func (c *Context) uniqueTypeByTable(t Type) (Type, bool) {
	if t, ok := t.(*RankedTensorType); ok {
		return c.uniqueTensor(t.Dims, t.Elem, t.Encoding), true
	}
	return nil, false
}
