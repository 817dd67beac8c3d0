package batch

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation"
)

// maxCronJobName: the controller names each Job <cronjob>-<minutes since the epoch>, eleven
// characters more, and a Job's name is a label of at most 63.
const maxCronJobName = 63 - 11

// ValidateCronJob is the rule list of a new CronJob.
func ValidateCronJob(cj *batchv1.CronJob) field.ErrorList {
	return validation.Join(
		validation.Meta(&cj.ObjectMeta, true, validation.SubdomainName, metadata),
		cronJobSpec(field.NewPath("spec"), &cj.Spec, nil),
		validation.When(len(cj.Name) > maxCronJobName,
			field.Invalid(metadata.Child("name"), cj.Name, fmt.Sprintf("must be no more than %d characters", maxCronJobName))),
	)
}

// ValidateCronJobUpdate is the rule list of an update. A CronJob's name is not checked for
// length again, so that one made before the limit can still be changed and deleted.
func ValidateCronJobUpdate(cj, old *batchv1.CronJob) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&cj.ObjectMeta, &old.ObjectMeta, metadata),
		cronJobSpec(field.NewPath("spec"), &cj.Spec, &old.Spec),
	)
}

func cronJobSpec(path *field.Path, s, old *batchv1.CronJobSpec) field.ErrorList {
	var errs field.ErrorList
	if s.Schedule == "" {
		errs = field.ErrorList{field.Required(path.Child("schedule"), "").MarkCoveredByDeclarative()}
	} else {
		// A TZ= prefix in the schedule is how time zones were given before spec.timeZone:
		// a schedule that has one may keep it.
		errs = schedule(path.Child("schedule"), s.Schedule, old != nil && strings.Contains(old.Schedule, "TZ"), s.TimeZone)
	}
	errs = append(errs, nonNegative64(path.Child("startingDeadlineSeconds"), s.StartingDeadlineSeconds)...)
	if old == nil || !ptr.Equal(s.TimeZone, old.TimeZone) {
		errs = append(errs, validation.IfSet(path.Child("timeZone"), s.TimeZone, timeZone)...)
	}
	var oldJob *batchv1.JobSpec
	if old != nil {
		oldJob = &old.JobTemplate.Spec
	}
	job := path.Child("jobTemplate", "spec")
	return validation.Join(errs,
		validation.OneOf(path.Child("concurrencyPolicy"), s.ConcurrencyPolicy, batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent),
		jobSpec(job, &s.JobTemplate.Spec, oldJob),
		// Each Job's selector is generated, from its own uid.
		validation.When(s.JobTemplate.Spec.Selector != nil,
			field.Invalid(job.Child("selector"), s.JobTemplate.Spec.Selector, "`selector` will be auto-generated")),
		validation.When(ptr.Deref(s.JobTemplate.Spec.ManualSelector, false),
			field.NotSupported(job.Child("manualSelector"), s.JobTemplate.Spec.ManualSelector, []string{"nil", "false"})),
		nonNegative(path.Child("successfulJobsHistoryLimit"), s.SuccessfulJobsHistoryLimit),
		nonNegative(path.Child("failedJobsHistoryLimit"), s.FailedJobsHistoryLimit),
	)
}

// schedule: five cron fields, or a descriptor such as @hourly, as the cronjob controller
// reads them.
func schedule(path *field.Path, v string, keepTZ bool, zone *string) field.ErrorList {
	var errs field.ErrorList
	if _, err := ParseSchedule(v); err != nil {
		errs = append(errs, field.Invalid(path, v, err.Error()))
	}
	tz := strings.Contains(v, "TZ")
	return validation.Join(errs,
		validation.When(keepTZ && tz && zone != nil, field.Invalid(path, v, "cannot use both timeZone field and TZ or CRON_TZ in schedule")),
		validation.When(!keepTZ && tz, field.Invalid(path, v, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead")),
	)
}

// ParseSchedule parses a CronJob's schedule as its controller does. The parser panics on some
// malformed input ("TZ=0"); that is an error too.
func ParseSchedule(v string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	return cron.ParseStandard(v)
}

// zonePart is one part of an IANA time zone name ("America", "New_York"), before it is looked
// up: names that could reach outside the zone database ("..") are rejected unread.
var zonePart = regexp.MustCompile(`^[A-Za-z.\-_0-9+]{1,14}$`)

// timeZone: an IANA time zone the server knows, named explicitly (not "Local").
func timeZone(path *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Invalid(path, &v, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(v, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !zonePart.MatchString(part) {
			return field.ErrorList{field.Invalid(path, &v, "unknown time zone "+v)}
		}
	}
	errs := validation.When(strings.EqualFold(v, "Local"),
		field.Invalid(path, &v, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	if _, err := time.LoadLocation(v); err != nil {
		errs = append(errs, field.Invalid(path, &v, err.Error()))
	}
	return errs
}
