package audit

import "testing"

func BenchmarkZZGKE(b *testing.B) {
	for b.Loop() {
		if _, err := Read([]string{"/tmp/pm/gke-logentry.json"}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkZZNative(b *testing.B) {
	for b.Loop() {
		if _, err := Read([]string{"/tmp/pm/n100k.log"}, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
