#!/bin/sh
# Run by the temporal-namespace service once the server is healthy: registers the namespace the
# workers use, unless it exists.
set -eu
if temporal operator namespace describe --namespace "${TEMPORAL_NAMESPACE}" >/dev/null 2>&1; then
  echo "namespace ${TEMPORAL_NAMESPACE} exists"
else
  temporal operator namespace create --namespace "${TEMPORAL_NAMESPACE}" --retention "${NAMESPACE_RETENTION}"
  echo "namespace ${TEMPORAL_NAMESPACE} created"
fi
