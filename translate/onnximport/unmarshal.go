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
	out := make([]byte, 0, 64<<10)
	for b := model; len(b) > 0; {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return nil, nil, false
		}
		field := b[:n]
		b = b[n:]
		if num != fieldModelGraph || typ != protowire.BytesType {
			out = append(out, field...)
			continue
		}
		_, _, tagLen := protowire.ConsumeTag(field)
		graph, _ := protowire.ConsumeBytes(field[tagLen:])
		g, graphRaws, ok := stripGraphRaw(graph)
		if !ok {
			return nil, nil, false
		}
		out = protowire.AppendTag(out, fieldModelGraph, protowire.BytesType)
		out = protowire.AppendBytes(out, g)
		raws = append(raws, graphRaws...)
	}
	return out, raws, true
}

// stripGraphRaw is stripModelRaw for a GraphProto.
func stripGraphRaw(graph []byte) (stripped []byte, raws [][]byte, ok bool) {
	out := make([]byte, 0, min(len(graph), 64<<10))
	for b := graph; len(b) > 0; {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return nil, nil, false
		}
		field := b[:n]
		b = b[n:]
		if num != fieldGraphInitializer || typ != protowire.BytesType {
			out = append(out, field...)
			continue
		}
		_, _, tagLen := protowire.ConsumeTag(field)
		tensor, _ := protowire.ConsumeBytes(field[tagLen:])
		t, raw, ok := stripTensorRaw(tensor)
		if !ok {
			return nil, nil, false
		}
		out = protowire.AppendTag(out, fieldGraphInitializer, protowire.BytesType)
		out = protowire.AppendBytes(out, t)
		raws = append(raws, raw)
	}
	return out, raws, true
}

// stripTensorRaw is a TensorProto without its raw data, and that data
// (the last one, as a scalar field's last occurrence wins), capped so that
// an append cannot write into the model's bytes.
func stripTensorRaw(tensor []byte) (stripped, raw []byte, ok bool) {
	out := make([]byte, 0, min(len(tensor), 4<<10))
	for b := tensor; len(b) > 0; {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return nil, nil, false
		}
		field := b[:n]
		b = b[n:]
		if num != fieldTensorRawData || typ != protowire.BytesType {
			out = append(out, field...)
			continue
		}
		_, _, tagLen := protowire.ConsumeTag(field)
		v, _ := protowire.ConsumeBytes(field[tagLen:])
		raw = v[:len(v):len(v)]
	}
	return out, raw, true
}
