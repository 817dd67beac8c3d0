// Package printers sits inside the Core server of the chain and gives each
// built-in resource the table `kubectl get` shows: the Table a client receives
// when it asks for `application/json;as=Table;g=meta.k8s.io`. Each resource's
// Printer (Pod, Deployment, ...) is the rest.TableConvertor of its
// resource.Definition in servers/core/registry.
//
// A resource is declared once, in two parts:
//   - its columns, as data: columns.json holds the column definitions
//     kube-apiserver v1.37 sends (name, type, format, priority, description);
//     the tests compare them with the tables captured from it
//     (test/reference/tables);
//   - its cells, as one Go function that lists a row's values in column order:
//     fields read directly (d.Status.UpdatedReplicas) and small named helpers
//     for what kube-apiserver computes (a pod's READY and STATUS, a service's
//     EXTERNAL-IP, a deployment's READY "2/3", ...).
//
// table.go is the one builder for all of them: a row per item of a list, the
// list's metadata, the object itself in each row (the handler drops it unless
// the client asked for includeObject), every column including the -o wide
// ones (priority 1; kubectl hides them).
//
// Cells read the typed objects with Go rather than with JSONPath, as a CRD's
// additionalPrinterColumns do: the compiler checks every field, nothing is
// converted to unstructured per row, and client-go's jsonpath writes into its
// parsed path while it evaluates array indexes, so one parsed path could not
// serve concurrent requests.
package printers
