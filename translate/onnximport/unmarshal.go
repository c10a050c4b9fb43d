package onnximport

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// Field numbers of onnx.proto on the path to an initializer's raw data.
const (
	fieldModelGraph       = 7 // ModelProto.graph
	fieldGraphInitializer = 5 // GraphProto.initializer
	fieldTensorRawData    = 9 // TensorProto.raw_data
)

// Unmarshal decodes data as a ModelProto whose graph initializers' raw
// data refer to data instead of copying it: proto.Unmarshal copies every
// bytes field, which holds a model's weights twice while it is read. data
// must not change while the model is in use.
//
// The raw data is cut out of a copy of the model's wire form (a small one:
// what is left is the graph's structure), the copy is unmarshalled, and
// each initializer is given its slice of data, in the order of the wire,
// which is the order a repeated field's elements are merged in. Any wire
// form this does not follow is left to proto.Unmarshal, whose result and
// errors it then is.
func Unmarshal(data []byte, m *onnxpb.ModelProto) error {
	stripped, raws, ok := stripModelRaw(data)
	if !ok || len(raws) == 0 {
		return proto.Unmarshal(data, m)
	}
	if err := proto.Unmarshal(stripped, m); err != nil {
		return proto.Unmarshal(data, m)
	}
	inits := m.GetGraph().GetInitializer()
	if len(inits) != len(raws) {
		m.Reset()
		return proto.Unmarshal(data, m)
	}
	for i, t := range inits {
		if raws[i] != nil {
			t.RawData = raws[i]
		}
	}
	return nil
}

// stripModelRaw is model's wire form without its graphs' initializers'
// raw data, and that data, one entry (nil for none) per initializer in
// wire order. ok is false for a malformed wire form.
func stripModelRaw(model []byte) (stripped []byte, raws [][]byte, ok bool) {
	stripped, ok = rewriteField(model, fieldModelGraph, func(graph []byte) ([]byte, bool) {
		g, graphRaws, ok := stripGraphRaw(graph)
		raws = append(raws, graphRaws...)
		return g, ok
	})
	return stripped, raws, ok
}

// stripGraphRaw is stripModelRaw for a GraphProto.
func stripGraphRaw(graph []byte) (stripped []byte, raws [][]byte, ok bool) {
	stripped, ok = rewriteField(graph, fieldGraphInitializer, func(tensor []byte) ([]byte, bool) {
		t, raw, ok := stripTensorRaw(tensor)
		raws = append(raws, raw)
		return t, ok
	})
	return stripped, raws, ok
}

// stripTensorRaw is a TensorProto without its raw data, and that data
// (the last one, as a scalar field's last occurrence wins), capped so that
// an append cannot write into the model's bytes.
func stripTensorRaw(tensor []byte) (stripped, raw []byte, ok bool) {
	stripped, ok = rewriteField(tensor, fieldTensorRawData, func(v []byte) ([]byte, bool) {
		raw = v[:len(v):len(v)]
		return nil, true
	})
	return stripped, raw, ok
}

// rewriteField copies msg's wire form with each length-delimited field num
// replaced by what f makes of its contents (nil drops the field); other
// fields are copied as they are. ok is false for a malformed wire form, or
// when f says so.
func rewriteField(msg []byte, num protowire.Number, f func([]byte) ([]byte, bool)) ([]byte, bool) {
	out := make([]byte, 0, min(len(msg), 64<<10))
	for b := msg; len(b) > 0; {
		n, typ, size := protowire.ConsumeField(b)
		if size < 0 {
			return nil, false
		}
		field := b[:size]
		b = b[size:]
		if n != num || typ != protowire.BytesType {
			out = append(out, field...)
			continue
		}
		_, _, tagLen := protowire.ConsumeTag(field)
		v, _ := protowire.ConsumeBytes(field[tagLen:])
		inner, ok := f(v)
		if !ok {
			return nil, false
		}
		if inner != nil {
			out = protowire.AppendBytes(protowire.AppendTag(out, num, protowire.BytesType), inner)
		}
	}
	return out, true
}
