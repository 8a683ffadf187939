// Command loadgen fills a (test) cluster with objects for capture
// benchmarks: per namespace, an owner ConfigMap and ConfigMaps and Secrets
// owned by it, so the snapshot has a real owner graph.
//
//	go run ./test/bench/loadgen -kubeconfig /tmp/kgc-bench/kubeconfig -n 33000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KGC_BENCH_KUBECONFIG"), "kubeconfig of the cluster to fill")
	total := flag.Int("n", 33000, "objects to create")
	perNS := flag.Int("per-namespace", 500, "objects per namespace")
	workers := flag.Int("workers", 16, "parallel creates")
	pods := flag.Int("pods", 0, "also create this many Pods (owned by the namespace's owner ConfigMap; they stay Pending without a scheduler), spread over the namespaces")
	flag.Parse()
	if err := run(*kubeconfig, *total, *perNS, *workers, *pods); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string, total, perNS, workers, pods int) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = -1, 0
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx := context.Background()
	start := time.Now()
	var created atomic.Int64
	namespaces := (total + perNS - 1) / perNS
	total += pods
	for n := 0; n < namespaces; n++ {
		ns := fmt.Sprintf("bench-%03d", n)
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		owner, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			owner, err = cs.CoreV1().ConfigMaps(ns).Get(ctx, "owner", metav1.GetOptions{})
		}
		if err != nil {
			return err
		}
		created.Add(2)
		ref := []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}
		jobs := make(chan int)
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range jobs {
					name := fmt.Sprintf("obj-%04d", i)
					if i < 0 {
						name = fmt.Sprintf("pod-%04d", -i)
					}
					meta := metav1.ObjectMeta{Name: name, OwnerReferences: ref,
						Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%20)}, Annotations: map[string]string{"note": "bench"}}
					var err error
					switch {
					case i < 0:
						_, err = cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{
							Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1", Ports: []corev1.ContainerPort{{ContainerPort: 8080}},
								Env: []corev1.EnvVar{{Name: "MODE", Value: "bench"}}}}}}, metav1.CreateOptions{})
					case i%2 == 0:
						_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
					default:
						_, err = cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"k": "v"}}, metav1.CreateOptions{})
					}
					if err != nil && !apierrors.IsAlreadyExists(err) {
						select {
						case errs <- err:
						default:
						}
						return
					}
					created.Add(1)
				}
			}()
		}
		for i := 1; i <= pods/namespaces; i++ {
			jobs <- -i
		}
		for i := 0; i < perNS-2 && int(created.Load()) < total; i++ {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		select {
		case err := <-errs:
			return err
		default:
		}
		fmt.Fprintf(os.Stderr, "\r%d objects, %.0f/s", created.Load(), float64(created.Load())/time.Since(start).Seconds())
		if int(created.Load()) >= total {
			break
		}
	}
	fmt.Fprintf(os.Stderr, "\ncreated %d objects in %s\n", created.Load(), time.Since(start).Round(time.Second))
	return nil
}
