package onnxpb

import "google.golang.org/protobuf/proto"

// TensorValueInfo is a graph input's or output's description: a tensor of
// dt with static dims, as exporters write one. Tests and the example
// generator build models with it.
func TensorValueInfo(name string, dt TensorProto_DataType, dims ...int64) *ValueInfoProto {
	var shape TensorShapeProto
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &TensorShapeProto_Dimension{Value: &TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &ValueInfoProto{Name: proto.String(name), Type: &TypeProto{Value: &TypeProto_TensorType{
		TensorType: &TypeProto_Tensor{ElemType: proto.Int32(int32(dt)), Shape: &shape}}}}
}
