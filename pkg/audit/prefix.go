package audit

import (
	"bytes"
	"time"
)

// This file reads lines that put a word before each event: `oc adm
// node-logs --role=master --path=kube-apiserver/audit.log` names the
// control-plane node each line came from ("master-0 {...}"), and a
// CloudWatch Logs export to S3 writes "TIMESTAMP MESSAGE" lines. Either
// is read on the fast path of one event a line, the word dropped.

// prefixedForm says whether line is WORD then an event, and in which
// form: the word a timestamp is CloudWatch's S3 export, another word a
// node's name.
func prefixedForm(line []byte) (form, bool) {
	i := bytes.IndexByte(line, ' ')
	if i <= 0 || i+1 >= len(line) || line[i+1] != '{' || bytes.ContainsAny(line[:i], "{\"\t") {
		return 0, false
	}
	if _, err := time.Parse(time.RFC3339Nano, string(line[:i])); err == nil {
		return formEKSS3Export, true
	}
	return formOpenShiftNodeLogs, true
}

// dropPrefix drops the word before a line's event.
func dropPrefix(l []byte) []byte {
	if len(l) > 0 && l[0] == '{' {
		return l
	}
	if i := bytes.IndexByte(l, ' '); i > 0 && i+1 < len(l) && l[i+1] == '{' {
		return l[i+1:]
	}
	return l
}
