package onnximport_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// directRNN computes RNN, GRU or LSTM from the spec's equations, in f64,
// for X [seq, batch, input] (layout 0): Y [seq, dirs, batch, hidden] and
// the final H and C [dirs, batch, hidden].
type directRNN struct {
	op                        string
	seq, batch, input, hidden int
	dirs                      int
	reverse                   bool // with dirs 1
	x, w, r, b, h0, c0, p     []float64
	clip                      float64
	linearBeforeReset         bool
	act                       []func(float64) float64 // per direction's activations, flattened
}

func (m *directRNN) gates() int { return map[string]int{"RNN": 1, "GRU": 3, "LSTM": 4}[m.op] }

func (m *directRNN) run() (y, hN, cN []float64) {
	g, hid := m.gates(), m.hidden
	per := len(m.act) / m.dirs
	y = make([]float64, m.seq*m.dirs*m.batch*hid)
	hN, cN = make([]float64, m.dirs*m.batch*hid), make([]float64, m.dirs*m.batch*hid)
	for d := range m.dirs {
		f := func(j int, v float64) float64 {
			if m.clip > 0 {
				v = math.Max(-m.clip, math.Min(m.clip, v))
			}
			return m.act[d*per+j](v)
		}
		for bi := range m.batch {
			h, c := make([]float64, hid), make([]float64, hid)
			if m.h0 != nil {
				copy(h, m.h0[(d*m.batch+bi)*hid:])
			}
			if m.c0 != nil {
				copy(c, m.c0[(d*m.batch+bi)*hid:])
			}
			for s := range m.seq {
				t := s
				if m.reverse || d == 1 {
					t = m.seq - 1 - s
				}
				xt := m.x[(t*m.batch+bi)*m.input:][:m.input]
				// wx[k] = X·W_kᵀ + Wb_k, rh[k] = H·R_kᵀ + Rb_k for row k of all gates.
				wx, rh := make([]float64, g*hid), make([]float64, g*hid)
				for k := range g * hid {
					for i := range m.input {
						wx[k] += xt[i] * m.w[(d*g*hid+k)*m.input+i]
					}
					for i := range hid {
						rh[k] += h[i] * m.r[(d*g*hid+k)*hid+i]
					}
					if m.b != nil {
						wx[k] += m.b[d*2*g*hid+k]
						rh[k] += m.b[d*2*g*hid+g*hid+k]
					}
				}
				nh := make([]float64, hid)
				switch m.op {
				case "RNN":
					for k := range hid {
						nh[k] = f(0, wx[k]+rh[k])
					}
				case "GRU":
					z, r := make([]float64, hid), make([]float64, hid)
					for k := range hid {
						z[k], r[k] = f(0, wx[k]+rh[k]), f(0, wx[hid+k]+rh[hid+k])
					}
					for k := range hid {
						var cand float64
						if m.linearBeforeReset {
							cand = r[k] * rh[2*hid+k]
						} else {
							// (r ⊙ H)·R_hᵀ + Rb_h
							for i := range hid {
								cand += r[i] * h[i] * m.r[(d*g*hid+2*hid+k)*hid+i]
							}
							if m.b != nil {
								cand += m.b[d*2*g*hid+g*hid+2*hid+k]
							}
						}
						ht := f(1, wx[2*hid+k]+cand)
						nh[k] = (1-z[k])*ht + z[k]*h[k]
					}
				case "LSTM":
					nc := make([]float64, hid)
					for k := range hid {
						peep := func(q int, s float64) float64 {
							if m.p == nil {
								return 0
							}
							return m.p[d*3*hid+q*hid+k] * s
						}
						i := f(0, wx[k]+rh[k]+peep(0, c[k]))
						fg := f(0, wx[2*hid+k]+rh[2*hid+k]+peep(2, c[k]))
						gg := f(1, wx[3*hid+k]+rh[3*hid+k])
						nc[k] = fg*c[k] + i*gg
						o := f(0, wx[hid+k]+rh[hid+k]+peep(1, nc[k]))
						nh[k] = o * f(2, nc[k])
					}
					c = nc
				}
				h = nh
				copy(y[((t*m.dirs+d)*m.batch+bi)*hid:], h)
			}
			copy(hN[(d*m.batch+bi)*hid:], h)
			copy(cN[(d*m.batch+bi)*hid:], c)
		}
	}
	return y, hN, cN
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// The recurrent layers against their equations computed directly:
// bidirectional and reverse, biases, initial states, peepholes, clip,
// linear_before_reset, and activations with their α read in order.
func TestRecurrentLayersAgainstDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	alpha := float64(float32(0.3)) // as the attribute holds it
	leaky := func(x float64) float64 { return math.Max(x, alpha*x) }
	affine := func(x float64) float64 { return 0.5*x + 0.25 }
	for _, c := range []struct {
		name    string
		m       directRNN
		attrs   []*pb.AttributeProto
		useBias bool
		useInit bool
		usePeep bool
	}{
		{name: "RNN bidirectional, LeakyRelu and Affine with α and β", m: directRNN{op: "RNN", dirs: 2, act: []func(float64) float64{leaky, affine}},
			attrs: []*pb.AttributeProto{strAttr("direction", "bidirectional"), stringsAttr("activations", "LeakyRelu", "Affine"),
				floatsAttr("activation_alpha", 0.3, 0.5), floatsAttr("activation_beta", 0.25)}, useBias: true, useInit: true},
		{name: "GRU reverse", m: directRNN{op: "GRU", dirs: 1, reverse: true, act: []func(float64) float64{sigmoid, math.Tanh}},
			attrs: []*pb.AttributeProto{strAttr("direction", "reverse")}, useBias: true, useInit: true},
		{name: "GRU linear_before_reset, clip", m: directRNN{op: "GRU", dirs: 1, linearBeforeReset: true, clip: 0.5, act: []func(float64) float64{sigmoid, math.Tanh}},
			attrs: []*pb.AttributeProto{intAttr("linear_before_reset", 1), floatAttrOf("clip", 0.5)}, useBias: true},
		{name: "LSTM bidirectional with peepholes and initial states", m: directRNN{op: "LSTM", dirs: 2, act: []func(float64) float64{sigmoid, math.Tanh, math.Tanh, sigmoid, math.Tanh, math.Tanh}},
			attrs: []*pb.AttributeProto{strAttr("direction", "bidirectional")}, useBias: true, useInit: true, usePeep: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.m
			m.seq, m.batch, m.input, m.hidden = 3, 2, 4, 3
			g, hid, nd := m.gates(), m.hidden, m.dirs
			m.x = randoms(rng, m.seq*m.batch*m.input, 1)
			m.w = randoms(rng, nd*g*hid*m.input, 0.5)
			m.r = randoms(rng, nd*g*hid*hid, 0.5)
			inits := []*pb.TensorProto{doubles("W", []int64{int64(nd), int64(g * hid), int64(m.input)}, m.w), doubles("R", []int64{int64(nd), int64(g * hid), int64(hid)}, m.r)}
			ins := []string{"X", "W", "R", "", "", "", "", ""}
			if c.useBias {
				m.b = randoms(rng, nd*2*g*hid, 0.5)
				inits = append(inits, doubles("B", []int64{int64(nd), int64(2 * g * hid)}, m.b))
				ins[3] = "B"
			}
			if c.useInit {
				m.h0 = randoms(rng, nd*m.batch*hid, 0.5)
				inits = append(inits, doubles("H0", []int64{int64(nd), int64(m.batch), int64(hid)}, m.h0))
				ins[5] = "H0"
				if m.op == "LSTM" {
					m.c0 = randoms(rng, nd*m.batch*hid, 0.5)
					inits = append(inits, doubles("C0", []int64{int64(nd), int64(m.batch), int64(hid)}, m.c0))
					ins[6] = "C0"
				}
			}
			if c.usePeep {
				m.p = randoms(rng, nd*3*hid, 0.5)
				inits = append(inits, doubles("P", []int64{int64(nd), int64(3 * hid)}, m.p))
				ins[7] = "P"
			}
			for len(ins) > 3 && ins[len(ins)-1] == "" {
				ins = ins[:len(ins)-1]
			}
			outs := []string{"Y", "Yh"}
			if m.op == "LSTM" {
				outs = append(outs, "Yc")
			}
			attrs := append([]*pb.AttributeProto{intAttr("hidden_size", int64(hid))}, c.attrs...)
			mod := model(14, []*pb.ValueInfoProto{pb.TensorValueInfo("X", pb.TensorProto_DOUBLE, int64(m.seq), int64(m.batch), int64(m.input))}, inits,
				[]*pb.NodeProto{node(m.op, "rnn", ins, outs, attrs...)}, outs...)
			xa, err := eval.FromValues([]int{m.seq, m.batch, m.input}, elem.F64, m.x)
			if err != nil {
				t.Fatal(err)
			}
			got := run(t, mod, onnximport.Options{}, xa)
			y, hN, cN := m.run()
			wants := [][]float64{y, hN, cN}
			compared := 0
			for o := range outs {
				if len(got[o].Data) != len(wants[o]) {
					t.Fatalf("output %s: %d values, want %d", outs[o], len(got[o].Data), len(wants[o]))
				}
				for i, w := range wants[o] {
					if math.Abs(got[o].Data[i]-w) > 1e-9 {
						t.Fatalf("output %s element %d: %v, want %v", outs[o], i, got[o].Data[i], w)
					}
					compared++
				}
			}
			if compared == 0 {
				t.Fatal("nothing compared")
			}
		})
	}
}

func doubles(name string, dims []int64, vals []float64) *pb.TensorProto {
	return &pb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(pb.TensorProto_DOUBLE)), DoubleData: vals}
}

func stringsAttr(name string, v ...string) *pb.AttributeProto {
	a := &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_STRINGS.Enum()}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

func floatsAttr(name string, v ...float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_FLOATS.Enum(), Floats: v}
}

func floatAttrOf(name string, v float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}
