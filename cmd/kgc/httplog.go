package main

import (
	"flag"
	"io"
	"strconv"

	"k8s.io/klog/v2"
)

// logHTTPAt is the -v from which client-go logs every HTTP request, as
// kubectl does: 6 the method, URL, status and time; 7 the request headers;
// 8 the response headers and a truncated body; 9 the whole body and curl.
const logHTTPAt = 6

// logHTTP makes client-go's transport log requests at verbosity v, to
// errOut, in kubectl's format: client-go decides from klog's verbosity
// (transport.DebugWrappers) when it builds a client, so this runs before
// any client is built. klog's settings are process-wide, as in kubectl;
// every connecting command sets them, so a -v of an earlier run does not
// carry over.
func logHTTP(v int, errOut io.Writer) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if v < logHTTPAt {
		v = 0
	}
	// Only the flags klog defines are set: the values cannot fail to parse.
	_ = fs.Set("v", strconv.Itoa(v))
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(errOut)
}
