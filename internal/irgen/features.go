package irgen

import "sort"

// A Feature is one construct of the textual IR that the generator can emit.
// Features are knobs (Config.Off) and coverage counters (Coverage).
type Feature string

// Op structure, SSA values, blocks and regions.
const (
	OpResult             Feature = "op-result"
	ResultGroup          Feature = "result-group"                // %a:2 = ...
	ResultGroupUse       Feature = "result-group-use"            // %a#1
	SeveralResultGroups  Feature = "several-result-groups"       // %a, %b:2 = ...
	Operands             Feature = "operands"                    // "d.op"(%a, %b)
	ForwardReference     Feature = "forward-reference"           // a use before its definition, in a graph region
	OwnResultInRegion    Feature = "own-result-in-region"        // a graph-region op's region uses its results
	Successors           Feature = "successors"                  // "d.br"()[^bb1]
	DuplicateSuccessor   Feature = "successor-duplicate"         // "d.br"()[^bb1, ^bb1]
	SuccessorOperands    Feature = "successor-operands"          // values passed to block arguments
	BlockArguments       Feature = "block-arguments"             // ^bb1(%a: i32)
	EntryBlockArguments  Feature = "entry-block-arguments"       // ^bb0(%a: i32) in an op's region
	MultiBlockRegion     Feature = "multi-block-region"          // SSACFG region with dominance
	UnreachableBlock     Feature = "unreachable-block"           // a block with no predecessors
	GraphRegion          Feature = "graph-region"                // single-block region of an unregistered op
	EmptyRegion          Feature = "empty-region"                // ({})
	EmptyBlock           Feature = "empty-block"                 // ({^bb0:})
	SeveralRegions       Feature = "several-regions"             // ({...}, {...})
	DeepNesting          Feature = "deep-nesting"                // regions three levels deep
	PropertiesDict       Feature = "properties-dict"             // <{a = 1}>
	PropertiesOther      Feature = "properties-other"            // <[1, 2]>: any attribute
	PropertiesEmpty      Feature = "properties-empty"            // <{}> is kept
	AttrDict             Feature = "attr-dict"                   // {a = 1}
	UnitShorthand        Feature = "attr-dict-unit-shorthand"    // {a}
	QuotedAttrName       Feature = "attr-dict-quoted-name"       // {"a b" = 1}
	KeywordAttrName      Feature = "attr-dict-keyword-name"      // {i32 = 1, true = 2}
	NumericValueName     Feature = "value-name-numeric"          // %12
	IdentValueName       Feature = "value-name-identifier"       // %x.y
	PunctValueName       Feature = "value-name-punctuation"      // %-x, %$y.z
	OddBlockLabel        Feature = "block-label-unusual"         // ^bb-1, ^7
	ImplicitModule       Feature = "module-implicit"             // top-level ops without a module
	ExplicitModule       Feature = "module-explicit-generic"     // "builtin.module"() ({...})
	CustomModule         Feature = "module-explicit-custom"      // module @m attributes {...} {...}
	NestedModule         Feature = "module-nested"               // a module inside a module
	ModuleAttributes     Feature = "module-attributes"           // {t.x = 1} on a module
	ModuleName           Feature = "module-name"                 // sym_name on a module
	FuncGeneric          Feature = "func-generic"                // "func.func"() <{...}> ({...})
	FuncCustom           Feature = "func-custom"                 // func.func @f(%a: i32) -> i32 {...}
	FuncDeclaration      Feature = "func-declaration"            // a private function without a body
	FuncArgAttrs         Feature = "func-arg-attrs"              // arg_attrs / %a: i32 {d.x}
	FuncResultAttrs      Feature = "func-result-attrs"           // res_attrs / -> (i32 {d.x})
	FuncVisibility       Feature = "func-visibility"             // private / nested
	FuncMultiBlock       Feature = "func-multi-block"            // several blocks in a function body
	FuncInherentInDict   Feature = "func-inherent-in-dict"       // sym_name written in {...} moves to <{...}>
	FuncExtraAttrs       Feature = "func-extra-attrs"            // discardable attributes on func.func
	FuncReturnGeneric    Feature = "func-return-generic"         // "func.return"(%a) : (i32) -> ()
	FuncReturnCustom     Feature = "func-return-custom"          // return %a : i32
	UnregisteredTerminal Feature = "unregistered-terminator"     // a block ends with an unregistered op
	ParenthesisedResult  Feature = "single-result-parenthesised" // -> (i32)
	Comments             Feature = "comments"                    // // lines between ops and entries
	OddWhitespace        Feature = "odd-whitespace"              // tabs, line breaks inside ops
	SiblingNameReuse     Feature = "sibling-name-reuse"          // a value name of a closed region again
	BlockLabelReuse      Feature = "block-label-reuse"           // ^blk0 in nested and sibling regions
)

// Types.
const (
	TypeSignless       Feature = "type-signless-int"  // i32
	TypeOddWidth       Feature = "type-odd-width-int" // i3, i0, i1000
	TypeSigned         Feature = "type-signed-int"    // si8
	TypeUnsigned       Feature = "type-unsigned-int"  // ui8
	TypeIndex          Feature = "type-index"
	TypeComplex        Feature = "type-complex"
	TypeTuple          Feature = "type-tuple"
	TypeNone           Feature = "type-none"
	TypeFunction       Feature = "type-function"
	TypeTensor         Feature = "type-tensor"
	TypeTensorDynamic  Feature = "type-tensor-dynamic" // tensor<?x4xf32>
	TypeTensor0D       Feature = "type-tensor-0d"      // tensor<f32>
	TypeTensorEncoding Feature = "type-tensor-encoding"
	TypeTensorUnranked Feature = "type-tensor-unranked"
	TypeMemRef         Feature = "type-memref"
	TypeMemRefAffine   Feature = "type-memref-affine-layout"
	TypeMemRefStrided  Feature = "type-memref-strided-layout"
	TypeMemRefSpace    Feature = "type-memref-memory-space"
	TypeMemRefUnranked Feature = "type-memref-unranked"
	TypeVector         Feature = "type-vector"
	TypeVectorScalable Feature = "type-vector-scalable" // vector<[4]xf32>
	TypeVector0D       Feature = "type-vector-0d"       // vector<f32>
	TypeOpaque         Feature = "type-opaque"          // !d.t<...>
	TypeOpaqueBare     Feature = "type-opaque-bare"     // !d.t
	TypeOpaqueDialect  Feature = "type-opaque-dialect"  // !d<"...">
	TypeAlias          Feature = "type-alias"           // !t = ...
)

// Attributes.
const (
	AttrInteger         Feature = "attr-integer"
	AttrIntegerOdd      Feature = "attr-integer-odd-width"
	AttrIntegerSigned   Feature = "attr-integer-signed"
	AttrIntegerUnsigned Feature = "attr-integer-unsigned"
	AttrIntegerHex      Feature = "attr-integer-hex"
	AttrIntegerWide     Feature = "attr-integer-wide" // more than 64 bits
	AttrIntegerWrap     Feature = "attr-integer-wrap" // 255 : i8 prints -1
	AttrIntegerDefault  Feature = "attr-integer-default-type"
	AttrIndex           Feature = "attr-index"
	AttrBool            Feature = "attr-bool"
	AttrFloat           Feature = "attr-float"
	AttrFloatDecimal    Feature = "attr-float-decimal"
	AttrFloatExponent   Feature = "attr-float-exponent" // 1.e5, 2.5E-3
	AttrFloatHex        Feature = "attr-float-hex"
	AttrFloatInf        Feature = "attr-float-inf"
	AttrFloatNaN        Feature = "attr-float-nan"
	// AttrFloatNaNPayloadNarrow: a NaN with a sign or payload other than
	// the default quiet NaN, in a float type narrower than f32.
	AttrFloatNaNPayloadNarrow Feature = "attr-float-nan-payload-narrow"
	AttrFloatOverflow         Feature = "attr-float-overflow" // 1.0e39 : f32 becomes inf
	AttrFloatNegZero          Feature = "attr-float-negative-zero"
	AttrFloatLongDigits       Feature = "attr-float-long-digits" // rounding of many digits
	// AttrFloatWideInexact: an f80 or f128 decimal literal whose value
	// seven significant digits do not give exactly (0.1 : f80).
	AttrFloatWideInexact Feature = "attr-float-wide-inexact"
	AttrFloatDefault     Feature = "attr-float-default-type"
	AttrString           Feature = "attr-string"
	AttrStringEscapes    Feature = "attr-string-escapes" // \n \t \" \\ \XX
	AttrStringRawTab     Feature = "attr-string-raw-tab"
	AttrStringUTF8       Feature = "attr-string-utf8"
	AttrStringTyped      Feature = "attr-string-typed" // "s" : i32
	// AttrStringTypedNone: "s" : none, which is "s".
	AttrStringTypedNone Feature = "attr-string-typed-none"
	AttrUnit            Feature = "attr-unit"
	AttrArray           Feature = "attr-array"
	AttrDictionary      Feature = "attr-dictionary"
	AttrDenseSplat      Feature = "attr-dense-splat"
	AttrDenseNested     Feature = "attr-dense-nested"
	AttrDenseHex        Feature = "attr-dense-hex"
	AttrDenseComplex    Feature = "attr-dense-complex"
	AttrDenseBool       Feature = "attr-dense-bool"
	AttrDenseFloat      Feature = "attr-dense-float"
	AttrDenseIndex      Feature = "attr-dense-index"
	AttrDenseString     Feature = "attr-dense-string"
	AttrDenseEmpty      Feature = "attr-dense-empty"
	// AttrDenseStringEmpty: string elements, none of them.
	AttrDenseStringEmpty Feature = "attr-dense-string-empty"
	// AttrDenseStringEmptyInner: no string elements, with a zero dimension
	// before the last one (tensor<0x4x!d.s>): only dense<> can spell it.
	AttrDenseStringEmptyInner Feature = "attr-dense-string-empty-inner"
	AttrDenseLarge            Feature = "attr-dense-large" // over 100 elements print as hex
	// AttrDenseOddWidthHex: integer elements whose width is not a multiple
	// of 8 in the hex form: written as dense<"0x...">, or over 100 of them
	// written as a list (printed as hex).
	AttrDenseOddWidthHex Feature = "attr-dense-odd-width-hex"
	// AttrDenseTF32Hex: tf32 elements in dense<"0x..."> or in a dense
	// attribute of over 100 elements (printed as hex).
	AttrDenseTF32Hex    Feature = "attr-dense-tf32-hex"
	AttrDenseVector     Feature = "attr-dense-vector"
	AttrDenseResource   Feature = "attr-dense-resource" // dense_resource<b> with a {-# #-} blob
	AttrSparse          Feature = "attr-sparse"
	AttrDenseArray      Feature = "attr-dense-array" // array<i8: 1, 2>
	AttrDenseArrayEmpty Feature = "attr-dense-array-empty"
	// AttrDenseArrayNaN: a NaN in array<f32: ...> or array<f64: ...>.
	AttrDenseArrayNaN Feature = "attr-dense-array-nan"
	AttrType          Feature = "attr-type"
	AttrSymbolRef     Feature = "attr-symbol-ref"
	AttrSymbolNested  Feature = "attr-symbol-ref-nested" // @a::@b
	AttrSymbolQuoted  Feature = "attr-symbol-ref-quoted" // @"a b"
	AttrAffineMap     Feature = "attr-affine-map"
	AttrSemiAffineMap Feature = "attr-affine-map-semi-affine" // d0 mod s0
	AttrIntegerSet    Feature = "attr-integer-set"
	AttrStrided       Feature = "attr-strided"
	AttrOpaque        Feature = "attr-opaque"         // #d.a<...>
	AttrOpaqueBare    Feature = "attr-opaque-bare"    // #d.a
	AttrOpaqueDialect Feature = "attr-opaque-dialect" // #d<...>
	AttrAlias         Feature = "attr-alias"          // #a = ...
	AttrDistinct      Feature = "attr-distinct"       // distinct[0]<[1]>
)

// Locations.
const (
	LocFile          Feature = "loc-file"
	LocFileEmptyName Feature = "loc-file-empty-name" // "":1:2
	LocName          Feature = "loc-name"
	LocNameChild     Feature = "loc-name-child" // "n"("f":1:2)
	LocCallSite      Feature = "loc-callsite"
	LocFused         Feature = "loc-fused"
	LocFusedMeta     Feature = "loc-fused-metadata"
	// LocFusedMetadataUnknown: fused<m>[...] whose locations are all
	// unknown ones, or none.
	LocFusedMetadataUnknown Feature = "loc-fused-metadata-unknown"
	LocUnknown              Feature = "loc-unknown"
	LocAlias                Feature = "loc-alias"         // #loc = loc(...) defined before use
	LocAliasForward         Feature = "loc-alias-forward" // used in a trailing loc(#a) before the end-of-file definition
	LocBlockArg             Feature = "loc-block-argument"
	LocImplicit             Feature = "loc-implicit" // no loc(): the op's position in the file
)

// floatFeature is the coverage name of a float type, e.g. "float:f8E4M3".
func floatFeature(name string) Feature { return Feature("float:" + name) }

// denseArrayFeature is the coverage name of an array<T: ...> element type.
func denseArrayFeature(elem string) Feature { return Feature("attr-dense-array:" + elem) }

// Features lists every feature the generator knows, sorted.
func Features() []Feature {
	fs := []Feature{
		OpResult, ResultGroup, ResultGroupUse, SeveralResultGroups, Operands, ForwardReference,
		OwnResultInRegion, Successors, DuplicateSuccessor, SuccessorOperands, BlockArguments, EntryBlockArguments,
		MultiBlockRegion, UnreachableBlock, GraphRegion, EmptyRegion, EmptyBlock, SeveralRegions,
		DeepNesting, PropertiesDict, PropertiesOther, PropertiesEmpty, AttrDict, UnitShorthand,
		QuotedAttrName, KeywordAttrName, NumericValueName, IdentValueName, PunctValueName,
		OddBlockLabel, ImplicitModule, ExplicitModule, CustomModule, NestedModule, ModuleAttributes,
		ModuleName, FuncGeneric, FuncCustom, FuncDeclaration, FuncArgAttrs, FuncResultAttrs,
		FuncVisibility, FuncMultiBlock, FuncInherentInDict, FuncExtraAttrs, FuncReturnGeneric,
		FuncReturnCustom, UnregisteredTerminal, ParenthesisedResult, Comments, OddWhitespace,
		SiblingNameReuse, BlockLabelReuse,

		TypeSignless, TypeOddWidth, TypeSigned, TypeUnsigned, TypeIndex, TypeComplex, TypeTuple,
		TypeNone, TypeFunction, TypeTensor, TypeTensorDynamic, TypeTensor0D, TypeTensorEncoding,
		TypeTensorUnranked, TypeMemRef, TypeMemRefAffine, TypeMemRefStrided, TypeMemRefSpace,
		TypeMemRefUnranked, TypeVector, TypeVectorScalable, TypeVector0D, TypeOpaque, TypeOpaqueBare,
		TypeOpaqueDialect, TypeAlias,

		AttrInteger, AttrIntegerOdd, AttrIntegerSigned, AttrIntegerUnsigned, AttrIntegerHex,
		AttrIntegerWide, AttrIntegerWrap, AttrIntegerDefault, AttrIndex, AttrBool, AttrFloat, AttrFloatDecimal,
		AttrFloatExponent, AttrFloatHex, AttrFloatInf, AttrFloatNaN, AttrFloatNaNPayloadNarrow, AttrFloatOverflow,
		AttrFloatNegZero, AttrFloatLongDigits, AttrFloatWideInexact, AttrFloatDefault, AttrString, AttrStringEscapes,
		AttrStringRawTab, AttrStringUTF8, AttrStringTyped, AttrStringTypedNone, AttrUnit, AttrArray, AttrDictionary,
		AttrDenseSplat, AttrDenseNested, AttrDenseHex, AttrDenseComplex, AttrDenseBool,
		AttrDenseFloat, AttrDenseIndex, AttrDenseString, AttrDenseEmpty, AttrDenseStringEmpty, AttrDenseStringEmptyInner,
		AttrDenseLarge, AttrDenseOddWidthHex, AttrDenseTF32Hex, AttrDenseArrayNaN,
		AttrDenseVector, AttrDenseResource, AttrSparse, AttrDenseArray, AttrDenseArrayEmpty,
		AttrType, AttrSymbolRef, AttrSymbolNested, AttrSymbolQuoted, AttrAffineMap,
		AttrSemiAffineMap, AttrIntegerSet, AttrStrided, AttrOpaque, AttrOpaqueBare,
		AttrOpaqueDialect, AttrAlias, AttrDistinct,

		LocFile, LocFileEmptyName, LocName, LocNameChild, LocCallSite, LocFused, LocFusedMeta, LocFusedMetadataUnknown, LocUnknown, LocAlias,
		LocAliasForward, LocBlockArg, LocImplicit,
	}
	for _, fk := range floatKinds {
		fs = append(fs, floatFeature(fk.name))
	}
	for _, e := range denseArrayElems {
		fs = append(fs, denseArrayFeature(e))
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i] < fs[j] })
	return fs
}

// Coverage counts how often each feature was emitted.
type Coverage map[Feature]int

// Add adds the counts of o to c.
func (c Coverage) Add(o Coverage) {
	for f, n := range o {
		c[f] += n
	}
}

// Missing lists the features of want that c never saw, sorted.
func (c Coverage) Missing(want []Feature) []Feature {
	var m []Feature
	for _, f := range want {
		if c[f] == 0 {
			m = append(m, f)
		}
	}
	return m
}
