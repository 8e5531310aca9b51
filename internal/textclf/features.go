package textclf

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Token is one word of a text, with its rune offsets.
type Token struct {
	Word       string
	Start, End int // rune offsets into the text
	// Sentence counts the sentence breaks before the token.
	Sentence int
}

// Tokens splits text into words: runs of letters and digits, lower-cased
// after NFKC; a Han, kana or Hangul character is a word of its own.
// Sentence breaks are . ! ? ; followed by white space or the end, their
// full-width forms, and line breaks (so "~/.aws/config" or "v1.2" breaks
// nothing).
func Tokens(text string) []Token {
	var out []Token
	var word []rune
	start, sentence := 0, 0
	runes := []rune(text)
	flush := func(i int) {
		if len(word) > 0 {
			out = append(out, Token{Word: norm.NFKC.String(string(word)), Start: start, End: i, Sentence: sentence})
			word = word[:0]
		}
	}
	for i, r := range runes {
		switch {
		case ideographic(r):
			flush(i)
			out = append(out, Token{Word: string(r), Start: i, End: i + 1, Sentence: sentence})
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if len(word) == 0 {
				start = i
			}
			word = append(word, unicode.ToLower(r))
		default:
			flush(i)
			if strings.ContainsRune("。！？；\n", r) ||
				strings.ContainsRune(".!?;", r) && (i+1 == len(runes) || unicode.IsSpace(runes[i+1])) {
				sentence++
			}
		}
	}
	flush(len(runes))
	return out
}

// ideographic reports whether r is written as a word of its own.
func ideographic(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Sentence is one sentence of a text: its rune range (first word to
// last) and its features.
type Sentence struct {
	Start, End int
	Features   []string
}

// Sentences splits text into sentences with their features: the distinct
// unigrams and bigrams of each.
func Sentences(text string) []Sentence {
	var out []Sentence
	toks := Tokens(text)
	for j := 0; j < len(toks); {
		k := j
		for k < len(toks) && toks[k].Sentence == toks[j].Sentence {
			k++
		}
		out = append(out, Sentence{Start: toks[j].Start, End: toks[k-1].End, Features: features(toks[j:k])})
		j = k
	}
	return out
}

// Features are the distinct unigrams and in-sentence bigrams of text.
func Features(text string) []string { return features(Tokens(text)) }

// stemLen is the length of the prefix of a longer word that is also a
// feature, a crude stem shared by the inflections of a word ("instructions",
// "instructed"; "appelez", "appeler").
const stemLen = 5

// features are the distinct unigrams and bigrams of toks; bigrams do not
// cross sentences.
func features(toks []Token) []string {
	seen := make(map[string]bool, 2*len(toks))
	out := make([]string, 0, 2*len(toks))
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for j, tok := range toks {
		add(tok.Word)
		if r := []rune(tok.Word); len(r) > stemLen {
			add(string(r[:stemLen]) + "~")
		}
		if j > 0 && toks[j-1].Sentence == tok.Sentence {
			add(toks[j-1].Word + " " + tok.Word)
		}
	}
	return out
}
