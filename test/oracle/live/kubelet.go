package live

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Kubelet stands in for what a node and kube-controller-manager do for the objects OLM writes,
// since neither runs here: the deployment controller and the kubelet roll a Deployment out
// (its status says every replica is updated, ready and available; no ReplicaSet or Pod is
// made), and the service account controller gives every namespace its "default"
// ServiceAccount (a CSV may run as it, and OLM checks that it exists). It watches with
// client-go informers and writes through a work queue, retrying conflicts.
type Kubelet struct {
	kube  kubernetes.Interface
	queue workqueue.TypedRateLimitingInterface[key]
	stop  context.CancelFunc
	wg    sync.WaitGroup

	deployments appslisters.DeploymentLister
	namespaces  corelisters.NamespaceLister
	// paused holds Deployments back: their status is left as it is (a rollout that never
	// finishes), by namespace/name.
	mu     sync.Mutex
	paused map[string]bool
}

// key is a work item: a Deployment to roll out, or a namespace to give its ServiceAccount.
type key struct {
	kind      string // "Deployment" or "Namespace"
	namespace string
	name      string
}

// NewKubelet returns a stand-in kubelet writing through kube.
func NewKubelet(kube kubernetes.Interface) *Kubelet {
	return &Kubelet{kube: kube, paused: map[string]bool{},
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[key](10*time.Millisecond, time.Second))}
}

// Start starts the informers and the worker; it returns once the informers have synced. The
// stand-in runs until Stop.
func (k *Kubelet) Start() error {
	ctx, stop := context.WithCancel(context.Background())
	k.stop = stop
	factory := informers.NewSharedInformerFactory(k.kube, 0)
	enqueue := func(kind string) cache.ResourceEventHandlerFuncs {
		add := func(obj any) {
			if m, err := metaOf(obj); err == nil {
				k.queue.Add(key{kind: kind, namespace: m.GetNamespace(), name: m.GetName()})
			}
		}
		return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }}
	}
	deployments := factory.Apps().V1().Deployments()
	namespaces := factory.Core().V1().Namespaces()
	if _, err := deployments.Informer().AddEventHandler(enqueue("Deployment")); err != nil {
		return fmt.Errorf("watching deployments: %w", err)
	}
	if _, err := namespaces.Informer().AddEventHandler(enqueue("Namespace")); err != nil {
		return fmt.Errorf("watching namespaces: %w", err)
	}
	k.deployments, k.namespaces = deployments.Lister(), namespaces.Lister()
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("the stand-in kubelet's %v informer did not sync", typ)
		}
	}
	k.wg.Go(func() {
		for k.work(ctx) {
		}
	})
	go func() {
		<-ctx.Done()
		k.queue.ShutDown()
	}()
	return nil
}

// Stop stops the stand-in kubelet.
func (k *Kubelet) Stop() {
	if k.stop != nil {
		k.stop()
		k.wg.Wait()
	}
}

// Hold stops rolling out a Deployment (as if its pods never became ready); Release resumes.
func (k *Kubelet) Hold(namespace, name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.paused[namespace+"/"+name] = true
}

// Release resumes rolling out a Deployment held by Hold.
func (k *Kubelet) Release(namespace, name string) {
	k.mu.Lock()
	delete(k.paused, namespace+"/"+name)
	k.mu.Unlock()
	k.queue.Add(key{kind: "Deployment", namespace: namespace, name: name})
}

// work handles one item; it returns false once the queue is shut down.
func (k *Kubelet) work(ctx context.Context) bool {
	item, shutdown := k.queue.Get()
	if shutdown {
		return false
	}
	defer k.queue.Done(item)
	var err error
	switch item.kind {
	case "Deployment":
		var d *appsv1.Deployment
		if d, err = k.deployments.Deployments(item.namespace).Get(item.name); err == nil {
			err = k.rollOut(ctx, d)
		}
	case "Namespace":
		var ns *corev1.Namespace
		if ns, err = k.namespaces.Get(item.name); err == nil {
			err = k.defaultServiceAccount(ctx, ns)
		}
	}
	if err != nil && !apierrors.IsNotFound(err) {
		k.queue.AddRateLimited(item)
		return true
	}
	k.queue.Forget(item)
	return true
}

// rollOut sets the status the deployment controller sets once every replica of the current
// generation is available.
func (k *Kubelet) rollOut(ctx context.Context, d *appsv1.Deployment) error {
	k.mu.Lock()
	held := k.paused[d.Namespace+"/"+d.Name]
	k.mu.Unlock()
	if held || d.DeletionTimestamp != nil {
		return nil
	}
	replicas := int32(1)
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	if d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == replicas &&
		d.Status.AvailableReplicas == replicas && available(d) {
		return nil
	}
	now := metav1.Now()
	d = d.DeepCopy()
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation,
		Replicas:           replicas, UpdatedReplicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
				Message: "Deployment has minimum availability.", LastUpdateTime: now, LastTransitionTime: now},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
				Message: "the stand-in kubelet rolled it out", LastUpdateTime: now, LastTransitionTime: now},
		},
	}
	if _, err := k.kube.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("rolling out deployment %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}

// available reports whether a Deployment's Available condition is true.
func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// defaultServiceAccount creates a namespace's "default" ServiceAccount, as the service account
// controller does.
func (k *Kubelet) defaultServiceAccount(ctx context.Context, ns *corev1.Namespace) error {
	if ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil {
		return nil
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns.Name}}
	if _, err := k.kube.CoreV1().ServiceAccounts(ns.Name).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the default service account of %s: %w", ns.Name, err)
	}
	return nil
}

// metaOf returns an informer object's metadata.
func metaOf(obj any) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("%T has no metadata", obj)
}
