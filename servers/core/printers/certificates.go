// Follows kubernetes pkg/printers/internalversion/printers.go
// (printCertificateSigningRequest, extractCSRStatus and the column
// definitions) as of kube-apiserver v1.37, on the certificates/v1 types.

package printers

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// CertificateSigningRequest prints certificates/v1 CertificateSigningRequests.
var CertificateSigningRequest = Printer{
	Columns: []metav1.TableColumnDefinition{
		nameColumn(),
		ageColumn(),
		{Name: "SignerName", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["signerName"]},
		{Name: "Requestor", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["request"]},
		{Name: "RequestedDuration", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["expirationSeconds"]},
		{Name: "Condition", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]},
	},
	Row: rowFunc(func(obj *certificatesv1.CertificateSigningRequest) ([]interface{}, error) {
		status := extractCSRStatus(obj)
		signerName := "<none>"
		if obj.Spec.SignerName != "" {
			signerName = obj.Spec.SignerName
		}
		requestedDuration := "<none>"
		if obj.Spec.ExpirationSeconds != nil {
			requestedDuration = duration.HumanDuration(expirationSecondsToDuration(*obj.Spec.ExpirationSeconds))
		}
		return []interface{}{obj.Name, translateTimestampSince(obj.CreationTimestamp), signerName, obj.Spec.Username, requestedDuration, status}, nil
	}),
}

func extractCSRStatus(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	var status string
	// must be in order of presidence
	if denied {
		status += "Denied"
	} else if approved {
		status += "Approved"
	} else {
		status += "Pending"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}
