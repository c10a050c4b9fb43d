package onnximport

import (
	"slices"
	"strings"

	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// stringOps are the operators that take string tensors: Cast and
// CastLike write and read numbers, StringNormalizer cleans text, Identity
// passes anything. Any other operator given a string is refused naming
// it, before its converter would take the string for numbers.
var stringOps = map[string]bool{"Cast": true, "CastLike": true, "StringNormalizer": true, "Identity": true}

// checkStringInputs refuses strings, and values whose length is known
// only at run time, where the operator cannot take them.
func (im *importer) checkStringInputs(n *onnxpb.NodeProto, in []*value) error {
	for i, v := range in {
		if v == nil || v.isSeq {
			continue
		}
		if v.elem == stringElem && !stringOps[n.GetOpType()] {
			return im.fail("input %d '%s' is a tensor of strings; %s takes numbers (strings are taken by Cast, CastLike, StringNormalizer and Identity)",
				i, n.GetInput()[i], n.GetOpType())
		}
		if slices.Contains(v.shape, dynamicDim) && n.GetOpType() != "Identity" {
			return im.fail("input %d '%s' has a length known only at run time (a StringNormalizer's); only a graph output may take it",
				i, n.GetInput()[i])
		}
	}
	return nil
}

// stringNormalizer is StringNormalizer: tensor.string_normalize of a [C]
// or [1, C] tensor of strings; the result's length is known only at run
// time. Case is changed by Unicode's rules whatever the locale (ONNX
// Runtime uses the named locale's; the two agree on the letters of
// en_US, the default).
func (im *importer) stringNormalizer(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if x.elem != stringElem {
		return im.fail("input of %s; StringNormalizer takes strings", elemName(x.elem))
	}
	if len(x.shape) != 1 && (len(x.shape) != 2 || x.shape[0] != 1) {
		return im.fail("input of shape %v; StringNormalizer takes [C] or [1, C]", x.shape)
	}
	action := "NONE"
	if a := im.typedAttr(n, "case_change_action", onnxpb.AttributeProto_STRING); a != nil {
		action = string(a.GetS())
	}
	switch action {
	case "LOWER", "UPPER", "NONE":
	default:
		return im.fail("case_change_action = '%s' (LOWER, UPPER or NONE)", action)
	}
	attrs := []string{"case_change_action = " + quote(action)}
	if im.attrInt(n, "is_case_sensitive", 0) != 0 {
		attrs = append(attrs, "is_case_sensitive")
	}
	if a := im.typedAttr(n, "stopwords", onnxpb.AttributeProto_STRINGS); a != nil {
		words := make([]string, len(a.GetStrings()))
		for i, w := range a.GetStrings() {
			words[i] = quote(string(w))
		}
		attrs = append(attrs, "stopwords = ["+strings.Join(words, ", ")+"]")
	}
	if im.attrErr != nil {
		return im.attrErr
	}
	src, err := im.use(x)
	if err != nil {
		return err
	}
	shape := []int64{dynamicDim}
	if len(x.shape) == 2 {
		shape = []int64{1, dynamicDim}
	}
	return im.out(n, im.emit(stringElem, shape, "tensor.string_normalize %s {%s} : %s -> %s", src, strings.Join(attrs, ", "),
		tensorType(x.elem, x.shape), tensorType(stringElem, shape)))
}
