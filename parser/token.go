package parser

// TokenKind classifies a token of MLIR's textual syntax. Keywords are not
// separate kinds: they lex as BareIdent and the parser compares spellings,
// which keeps the lexer a single pass with no table lookups.
type TokenKind uint8

const (
	EOF TokenKind = iota
	// Error is a token the lexer could not form; Lexer.Err holds why.
	Error

	BareIdent    // foo, i32, tensor, x4xf32
	AtIdent      // @foo, @"foo bar"
	HashIdent    // #foo, #1
	PercentIdent // %foo, %0
	CaretIdent   // ^bb0
	BangIdent    // !foo.bar

	Integer // 42, 0x2A
	Float   // 1.5, 1.e5
	String  // "text"

	Arrow             // ->
	Colon             // :
	Comma             // ,
	Ellipsis          // ...
	Equal             // =
	Greater           // >
	LBrace            // {
	LParen            // (
	LSquare           // [
	Less              // <
	Minus             // -
	Plus              // +
	Question          // ?
	RBrace            // }
	RParen            // )
	RSquare           // ]
	Star              // *
	VerticalBar       // |
	FileMetadataBegin // {-#
	FileMetadataEnd   // #-}

	numTokenKinds
)

var tokenKindNames = [numTokenKinds]string{
	EOF: "end of file", Error: "error",
	BareIdent: "identifier", AtIdent: "@-identifier", HashIdent: "#-identifier", PercentIdent: "%-identifier",
	CaretIdent: "^-identifier", BangIdent: "!-identifier",
	Integer: "integer", Float: "float", String: "string",
	Arrow: "->", Colon: ":", Comma: ",", Ellipsis: "...", Equal: "=", Greater: ">", LBrace: "{", LParen: "(",
	LSquare: "[", Less: "<", Minus: "-", Plus: "+", Question: "?", RBrace: "}", RParen: ")", RSquare: "]",
	Star: "*", VerticalBar: "|", FileMetadataBegin: "{-#", FileMetadataEnd: "#-}",
}

func (k TokenKind) String() string {
	if k < numTokenKinds {
		return tokenKindNames[k]
	}
	return "token"
}

// punctKinds maps punctuation spellings to kinds, for the custom-op and
// dialect-body parsers that name punctuation by its spelling.
var punctKinds = map[string]TokenKind{
	"->": Arrow, ":": Colon, ",": Comma, "...": Ellipsis, "=": Equal, ">": Greater, "{": LBrace,
	"(": LParen, "[": LSquare, "<": Less, "-": Minus, "+": Plus, "?": Question, "}": RBrace,
	")": RParen, "]": RSquare, "*": Star, "|": VerticalBar,
}

// Token is one lexed token: its kind, its byte span in the source and the
// 1-based line and byte column of its first byte.
type Token struct {
	Kind       TokenKind
	Start, End int
	Line, Col  int
}
