#!/bin/sh
# Run by the temporal-namespace service once the server is healthy: registers the namespace the
# workers use, unless it exists, and the search attributes sessions are listed by (the workers
# refuse a namespace without them; `agentd search-attributes --print` prints the same commands).
set -eu
if temporal operator namespace describe --namespace "${TEMPORAL_NAMESPACE}" >/dev/null 2>&1; then
  echo "namespace ${TEMPORAL_NAMESPACE} exists"
else
  temporal operator namespace create --namespace "${TEMPORAL_NAMESPACE}" --retention "${NAMESPACE_RETENTION}"
  echo "namespace ${TEMPORAL_NAMESPACE} created"
fi
existing=$(temporal operator search-attribute list --namespace "${TEMPORAL_NAMESPACE}")
for attribute in AgentdStatus=Keyword AgentdStep=Int AgentdContextFill=Double AgentdCostUsd=Double AgentdModel=Keyword; do
  name=${attribute%%=*}
  if printf '%s\n' "${existing}" | grep -qw "${name}"; then
    echo "search attribute ${name} exists"
  else
    temporal operator search-attribute create --namespace "${TEMPORAL_NAMESPACE}" --name "${name}" --type "${attribute#*=}"
    echo "search attribute ${name} created"
  fi
done
