// Package textclf is a small linear text classifier for the poisoning
// findings: multinomial logistic regression over the words of a tool
// definition (word unigrams and bigrams; each Han, kana or Hangul
// character is a word, so Chinese text yields character bigrams). It has
// no vocabulary, tokeniser or embedding from outside: the model is
// trained in the repository on the development split of the poisoning
// corpus (testdata/poisoning) and committed with the hash of that split.
//
// Training is deterministic (full-batch AdaGrad in a fixed order, no
// randomness), so `make detector-model` reproduces the committed weights.
package textclf
