//go:build tools

// Package deps pins the modules the project will import, so that go mod tidy keeps them while
// the packages that use them are being written. It is never built.
package deps

import (
	_ "github.com/blang/semver/v4"
	_ "github.com/go-air/gini"
	_ "github.com/google/cel-go/cel"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/operator-framework/api/pkg/operators/v1"
	_ "github.com/operator-framework/api/pkg/operators/v1alpha1"
	_ "github.com/operator-framework/api/pkg/operators/v2"
	_ "github.com/operator-framework/api/pkg/constraints"
	_ "github.com/spf13/cobra"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/api/rbac/v1"
	_ "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	_ "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	_ "sigs.k8s.io/kustomize/kyaml/fn/framework"
	_ "sigs.k8s.io/kustomize/kyaml/fn/framework/command"
	_ "sigs.k8s.io/kustomize/kyaml/fn/framework/frameworktestutil"
	_ "sigs.k8s.io/yaml"
	_ "github.com/stretchr/testify/require"
	_ "github.com/fluxcd/pkg/ssa"
	_ "github.com/fluxcd/pkg/ssa/normalize"
	_ "github.com/fluxcd/pkg/ssa/jsondiff"
	_ "github.com/fluxcd/pkg/ssa/utils"
)


