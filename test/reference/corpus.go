package reference

import (
	"encoding/json"
	"os"
)

// Corpus is validation-corpus.json: objects sent to kube-apiserver v1.37.2 and what it
// answered, in namespace Namespace.
type Corpus struct {
	Namespace string       `json:"namespace"`
	Cases     []CorpusCase `json:"cases"`
}

// CorpusCase is one case of the corpus: an object that was sent to kube-apiserver, created with
// ?dryRun=All, or created for real and then replaced by Update with ?dryRun=All, and what
// kube-apiserver answered.
type CorpusCase struct {
	Name   string                 `json:"name"`
	Op     string                 `json:"op"`
	Object map[string]interface{} `json:"object"`
	Update map[string]interface{} `json:"update"`
	Expect CorpusAnswer           `json:"expect"`
}

// CorpusAnswer is kube-apiserver's answer to a case: its status code and, for an error, the
// Status's reason, message and causes.
type CorpusAnswer struct {
	Code    int           `json:"code"`
	Reason  string        `json:"reason"`
	Message string        `json:"message"`
	Causes  []CorpusCause `json:"causes"`
}

// CorpusCause is one cause of a rejection: the field and the cause's type.
type CorpusCause struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// ReadCorpus reads the validation corpus.
func ReadCorpus() (*Corpus, error) {
	var c Corpus
	raw, err := os.ReadFile(Path("validation-corpus.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	return &c, nil
}
