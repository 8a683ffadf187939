package gen

import "fmt"

// The generated cluster: each namespace holds Deployments, each with a
// ReplicaSet and its Pods, and some ConfigMaps and Secrets.

type object struct {
	name, uid string
	rv        int
}

type deployment struct {
	object
	rs   object
	pods []object
}

type namespace struct {
	object
	deployments []*deployment
	configMaps  []object
	secrets     []object
	gen         int
}

func (g *generator) obj(name string) object {
	return object{name: name, uid: g.uid(), rv: 1000 + g.rnd.IntN(1_000_000)}
}

func (g *generator) newNamespace(name string) *namespace {
	ns := &namespace{object: g.obj(name)}
	for range 2 + g.rnd.IntN(4) {
		g.addDeployment(ns)
	}
	for i := range 3 {
		ns.configMaps = append(ns.configMaps, g.obj(fmt.Sprintf("config-%d", i)))
		ns.secrets = append(ns.secrets, g.obj(fmt.Sprintf("credentials-%d", i)))
	}
	return ns
}

func (g *generator) addDeployment(ns *namespace) {
	ns.gen++
	name := fmt.Sprintf("app-%d", ns.gen)
	d := &deployment{object: g.obj(name), rs: g.obj(name + "-7c9d8f5b4")}
	for i := range 1 + g.rnd.IntN(5) {
		d.pods = append(d.pods, g.obj(fmt.Sprintf("%s-%05x", d.rs.name, i*7919+g.rnd.IntN(4096))))
	}
	ns.deployments = append(ns.deployments, d)
}

// anyPod returns a pod of ns, with its deployment, if there is one.
func (g *generator) anyPod(ns *namespace) (*deployment, *object) {
	if len(ns.deployments) == 0 {
		return nil, nil
	}
	d := ns.deployments[g.rnd.IntN(len(ns.deployments))]
	if len(d.pods) == 0 {
		return d, nil
	}
	return d, &d.pods[g.rnd.IntN(len(d.pods))]
}
