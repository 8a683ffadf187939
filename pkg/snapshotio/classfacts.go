package snapshotio

import (
	"encoding/json"

	"github.com/kgc-dev/kgc/pkg/snapshot"
)

// defaultClassAnnotations mark a class object as its kind's default; kgc
// keeps only the fact (ClassFacts.Default), never the annotation.
var defaultClassAnnotations = map[string]bool{
	"ingressclass.kubernetes.io/is-default-class":     true,
	"storageclass.kubernetes.io/is-default-class":     true,
	"snapshot.storage.kubernetes.io/is-default-class": true,
	// The beta annotation StorageClass admission still honours.
	"storageclass.beta.kubernetes.io/is-default-class": true,
}

// classFacts reads the class fields of a class object (IngressClass
// spec.controller, GatewayClass spec.controllerName, StorageClass
// provisioner, VolumeSnapshotClass driver) or of an object naming a
// class (spec.ingressClassName, spec.gatewayClassName,
// spec.volumeSnapshotClassName, a VolumeSnapshotContent's spec.driver):
// nothing else of its spec (rules.ClassOf).
func classFacts(f topFields, ann annotated) (*snapshot.Facts, error) {
	var v struct {
		Controller, ControllerName, Driver                          string
		IngressClassName, GatewayClassName, VolumeSnapshotClassName string
	}
	c := &snapshot.ClassFacts{Default: ann.defaultClass}
	if f.spec != nil {
		if err := json.Unmarshal(f.spec, &v); err != nil {
			return &snapshot.Facts{Class: c}, err
		}
	}
	c.Controller = first(v.Controller, v.ControllerName, v.Driver)
	c.Name = first(v.IngressClassName, v.GatewayClassName, v.VolumeSnapshotClassName)
	for _, top := range [][]byte{f.provisioner, f.driver} {
		if top == nil || c.Controller != "" {
			continue
		}
		if err := json.Unmarshal(top, &c.Controller); err != nil {
			return &snapshot.Facts{Class: c}, err
		}
	}
	return &snapshot.Facts{Class: c}, nil
}

// first is the first non-empty string.
func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
