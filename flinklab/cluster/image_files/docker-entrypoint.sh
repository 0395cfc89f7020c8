#!/usr/bin/env bash
# Entrypoint of flinklab's OFFLINE STAND-IN image (tests only). It keeps the contract of the official
# `flink` image's /docker-entrypoint.sh so docker-compose.yml and the Docker backend behave the same with either:
#   jobmanager | taskmanager | standalone-job | history-server  -> that Flink process in the foreground
#   help                                                        -> usage
#   anything else                                               -> exec'd as is (e.g. bin/sql-client.sh)
# Configuration: JOB_MANAGER_RPC_ADDRESS (default: this container's hostname), TASK_MANAGER_NUMBER_OF_TASK_SLOTS,
# ENABLE_BUILT_IN_PLUGINS (';'-separated jar names from opt/), FLINK_PROPERTIES ("key: value" lines).
# Written for flinklab from the documented behaviour, not copied from apache/flink-docker.
set -u

FLINK_HOME="${FLINK_HOME:-/opt/flink}"

if [ "$(id -u)" = "0" ]; then
    echo "WARNING: Running as root user is not recommended. Please use a non-root user to run Flink."
fi

# Apply key=value pairs to conf/config.yaml through Flink's own parser (the same tool the official image uses).
apply_config() {
    [ "$#" -eq 0 ] && return 0
    "${FLINK_HOME}/bin/config-parser-utils.sh" "${FLINK_HOME}/conf" "${FLINK_HOME}/bin" "${FLINK_HOME}/lib" "$@" \
        >/dev/null || { echo "ERROR: could not write ${FLINK_HOME}/conf/config.yaml (is it writable by $(id -u)?)"; exit 1; }
}

enable_plugins() {
    local plugin name
    [ -z "${ENABLE_BUILT_IN_PLUGINS:-}" ] && return 0
    for plugin in $(echo "${ENABLE_BUILT_IN_PLUGINS}" | tr ';' ' '); do
        name="${plugin%.jar}"
        if [ ! -e "${FLINK_HOME}/opt/${plugin}" ]; then
            echo "Plugin ${plugin} does not exist. Exiting."
            exit 1
        fi
        mkdir -p "${FLINK_HOME}/plugins/${name}"
        ln -fs "${FLINK_HOME}/opt/${plugin}" "${FLINK_HOME}/plugins/${name}"
    done
}

configure() {
    local -a opts=(
        "-Djobmanager.rpc.address=${JOB_MANAGER_RPC_ADDRESS:-$(hostname -f)}"
        "-Dblob.server.port=6124"
        "-Dquery.server.port=6125"
    )
    if [ -n "${TASK_MANAGER_NUMBER_OF_TASK_SLOTS:-}" ]; then
        opts+=("-Dtaskmanager.numberOfTaskSlots=${TASK_MANAGER_NUMBER_OF_TASK_SLOTS}")
    fi
    # FLINK_PROPERTIES: one "key: value" per line. Every whitespace character of a line is deleted (the strictest
    # behaviour seen in official entrypoints), so a value containing spaces is mangled here exactly as it can be
    # there: docker-compose.yml must never rely on spaces inside values. Only the first ':' splits, so
    # "file:///x" values survive; values go through envsubst.
    local line key value
    while IFS= read -r line; do
        line="$(printf '%s' "${line}" | tr -d '[:space:]')"
        [ -z "${line}" ] && continue
        key="${line%%:*}"
        value="${line#*:}"
        [ "${key}" = "${line}" ] && continue  # no ':' on the line
        value="$(printf '%s' "${value}" | envsubst)"
        opts+=("-D${key}=${value}")
    done <<< "${FLINK_PROPERTIES:-}"
    apply_config "${opts[@]}"
}

case "${1:-help}" in
    help)
        echo "Usage: $(basename "$0") (jobmanager|standalone-job|taskmanager|history-server)"
        echo "    Or $(basename "$0") help"
        exit 0
        ;;
    jobmanager)
        shift; enable_plugins; configure
        echo "Starting Job Manager"
        exec "${FLINK_HOME}/bin/jobmanager.sh" start-foreground "$@"
        ;;
    standalone-job)
        shift; enable_plugins; configure
        echo "Starting Job Manager"
        exec "${FLINK_HOME}/bin/standalone-job.sh" start-foreground "$@"
        ;;
    history-server)
        shift; enable_plugins; configure
        echo "Starting History Server"
        exec "${FLINK_HOME}/bin/historyserver.sh" start-foreground "$@"
        ;;
    taskmanager)
        shift; enable_plugins; configure
        echo "Starting Task Manager"
        exec "${FLINK_HOME}/bin/taskmanager.sh" start-foreground "$@"
        ;;
esac

# Pass-through mode (the official image also configures before running an arbitrary command).
enable_plugins; configure
exec "$@"
