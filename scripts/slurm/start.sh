#!/usr/bin/env bash
# A one-node Slurm 22.05 cluster on loopback for the integration tests (Debian 12, as root).
#
# Installs slurmctld slurmd slurmdbd slurm-client munge mariadb-server if missing, sets up munge
# and MariaDB, writes slurm.conf / gres.conf / slurmdbd.conf, starts the daemons directly (no
# systemd), creates cluster `ledgertest` with accounts atlas and boreal and users alice (atlas),
# bob (boreal), carol and root (both), and waits until node gpunode01 (8 fake gpu:h100 GRES,
# symlinks to /dev/null) is idle. Idempotent: a daemon already running is left alone, unless
# this run changed its configuration (then it is restarted). Prints the time of each phase.
# The recipe and its traps: notes/slurm-on-loopback.md. Stop with scripts/slurm/stop.sh.
set -Eeuo pipefail

CLUSTER=ledgertest
NODE=gpunode01
PACKAGES=(slurmctld slurmd slurmdbd slurm-client munge mariadb-server)
ETC=/etc/slurm
FAKEGPU=/var/lib/slurm/fakegpu
LOGDIR=/var/log/slurm
DB_SOCKET=/run/mysqld/mysqld.sock
HOST=$(hostname -s 2>/dev/null || uname -n)
HOST=${HOST%%.*}

if [[ $(id -u) -ne 0 ]]; then
    echo "start.sh: must run as root" >&2
    exit 1
fi
trap 'echo "start.sh: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR

T0=$EPOCHREALTIME
PHASE_START=$T0
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%6.1f", b - a }'; }
phase() { # phase NAME: print the time since the previous phase ended
    printf 'slurm start: %-32s %s s\n' "$1" "$(elapsed "$PHASE_START")"
    PHASE_START=$EPOCHREALTIME
}
die() {
    echo "start.sh: $*" >&2
    exit 1
}
wait_for() { # wait_for SECONDS WHAT COMMAND...: poll every 0.2 s until COMMAND succeeds
    local limit=$1 what=$2
    shift 2
    local deadline=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || die "timed out after ${limit}s waiting for $what"
        sleep 0.2
    done
}
alive() { # alive PIDFILE: the process named by PIDFILE runs
    [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

# --- packages -----------------------------------------------------------------------------
missing=()
for pkg in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]})); then
    command -v apt-get >/dev/null || die "apt-get not found; install ${missing[*]} by hand"
    export DEBIAN_FRONTEND=noninteractive
    APT=(apt-get -o DPkg::Lock::Timeout=600 -q -y)
    # the apt lock of scripts/apt_ensure.sh: one install at a time across test workers
    exec 9>"${APT_LOCK:-/tmp/gpuledger-apt.lock}"
    flock -w 1200 9 || die "waited 20 min for the apt lock"
    # No service may start from a postinst (this script starts the daemons itself).
    POLICY_RC=/usr/sbin/policy-rc.d
    if [[ ! -e $POLICY_RC ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$POLICY_RC"
        chmod 755 "$POLICY_RC"
        trap 'rm -f "$POLICY_RC"' EXIT
    fi
    needs_update=0
    for pkg in "${missing[@]}"; do
        policy=$(apt-cache policy "$pkg" 2>/dev/null || true)
        [[ $policy == *"Candidate: "[^\(]* ]] || needs_update=1
    done
    if ((needs_update)); then
        "${APT[@]}" update >/dev/null
        phase "apt-get update"
    fi
    if ! "${APT[@]}" install --no-install-recommends "${missing[@]}" >/tmp/slurm-apt.log 2>&1; then
        # stale package lists (a 404 on a superseded .deb): refresh once and retry
        "${APT[@]}" update >/dev/null
        "${APT[@]}" install --no-install-recommends "${missing[@]}" >/tmp/slurm-apt.log 2>&1 ||
            die "apt-get install ${missing[*]} failed; see /tmp/slurm-apt.log"
    fi
    phase "apt-get install (${#missing[@]} pkgs)"
    # release the lock before any daemon starts: a daemon started below would inherit fd 9
    # and hold the lock for its life, so the next apt_ensure.sh would wait 20 min and fail
    exec 9>&-
fi

# --- directories, fake GPUs, test users -----------------------------------------------------
install -d -o munge -g munge -m 0755 /run/munge
install -d -o mysql -g mysql -m 0755 /run/mysqld /var/log/mysql
install -d -o slurm -g slurm -m 0755 /run/slurm "$LOGDIR" /var/lib/slurm /var/lib/slurm/slurmd
install -d -o slurm -g slurm -m 0700 /var/lib/slurm/slurmctld
install -d -m 0755 "$ETC" "$FAKEGPU"
for i in 0 1 2 3 4 5 6 7; do
    ln -sfn /dev/null "$FAKEGPU/nvidia$i"
done
for user in alice bob carol; do
    id -u "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
done

# --- configuration (rewritten only when different) ------------------------------------------
CHANGED=()
put() { # put PATH OWNER MODE < content: write PATH if its content differs
    local path=$1 owner=$2 mode=$3 tmp
    tmp=$(mktemp)
    cat >"$tmp"
    if [[ -f $path ]] && cmp -s "$tmp" "$path"; then
        rm -f "$tmp"
    else
        install -o "$owner" -g "$owner" -m "$mode" "$tmp" "$path"
        rm -f "$tmp"
        CHANGED+=("$(basename "$path")")
    fi
    chown "$owner:$owner" "$path"
    chmod "$mode" "$path"
}

if [[ -f $ETC/slurmdbd.conf ]]; then
    DB_PASS=$(sed -n 's/^StoragePass=//p' "$ETC/slurmdbd.conf")
fi
DB_PASS=${DB_PASS:-$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')}

put "$ETC/slurm.conf" root 0644 <<EOF
ClusterName=$CLUSTER
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
PrologFlags=Contain
ReturnToService=2
KillWait=5
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
GresTypes=gpu
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu,gres/gpu:h100
AccountingStorageEnforce=associations,limits,qos
JobCompType=jobcomp/none
NodeName=$NODE NodeHostname=$HOST NodeAddr=127.0.0.1 CPUs=16 Boards=1 SocketsPerBoard=1 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=16000 Gres=gpu:h100:8 State=UNKNOWN
PartitionName=gpu Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

put "$ETC/gres.conf" root 0644 <<EOF
AutoDetect=off
NodeName=$NODE Name=gpu Type=h100 File=$FAKEGPU/nvidia[0-7]
EOF

put "$ETC/slurmdbd.conf" slurm 0600 <<EOF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
LogFile=$LOGDIR/slurmdbd.log
PidFile=/run/slurm/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=$DB_PASS
StorageLoc=slurm_acct_db
EOF
phase "configuration${CHANGED[*]:+ (wrote ${CHANGED[*]})}"

# --- munge ----------------------------------------------------------------------------------
if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey -c -k /etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
fi
if ! alive /run/munge/munged.pid; then
    runuser -u munge -- /usr/sbin/munged </dev/null >>"$LOGDIR/munged.stdout" 2>&1
fi
wait_for 20 "munged" bash -c 'munge -n | unmunge'
phase "munged"

# --- MariaDB --------------------------------------------------------------------------------
if [[ ! -d /var/lib/mysql/mysql ]]; then
    mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/var/log/mysql/install.log 2>&1 ||
        die "mariadb-install-db failed; see /var/log/mysql/install.log"
fi
if ! alive /run/mysqld/mysqld.pid; then
    setsid /usr/sbin/mariadbd --user=mysql --pid-file=/run/mysqld/mysqld.pid \
        --socket="$DB_SOCKET" --log-error=/var/log/mysql/error.log \
        --innodb-buffer-pool-size=1024M </dev/null >/dev/null 2>&1 &
fi
wait_for 60 "mariadbd" mariadb-admin --socket="$DB_SOCKET" ping
mariadb --socket="$DB_SOCKET" <<EOF
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
ALTER USER 'slurm'@'localhost' IDENTIFIED BY '$DB_PASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
EOF
phase "mariadbd + DB user"

restart_if_changed() { # restart_if_changed PIDFILE CONF...: stop a running daemon whose config changed
    local pidfile=$1 conf pid
    shift
    alive "$pidfile" || return 0
    for conf in "$@"; do
        if [[ " ${CHANGED[*]} " == *" $conf "* ]]; then
            pid=$(cat "$pidfile")
            kill -TERM "$pid"
            wait_for 30 "pid $pid to exit" bash -c "! kill -0 $pid"
            return 0
        fi
    done
}

# --- slurmdbd -------------------------------------------------------------------------------
restart_if_changed /run/slurm/slurmdbd.pid slurmdbd.conf
if ! alive /run/slurm/slurmdbd.pid; then
    /usr/sbin/slurmdbd </dev/null >>"$LOGDIR/slurmdbd.stdout" 2>&1
fi
wait_for 60 "slurmdbd" sacctmgr -n show cluster
phase "slurmdbd"

# --- cluster, accounts, users ---------------------------------------------------------------
CLUSTERS=$(sacctmgr -n -P show cluster format=cluster)
grep -qx "$CLUSTER" <<<"$CLUSTERS" || sacctmgr -i add cluster "$CLUSTER" >/dev/null
ASSOC=$(sacctmgr -n -P show assoc cluster="$CLUSTER" format=account,user)
for account in atlas boreal; do
    grep -qx "$account|" <<<"$ASSOC" ||
        sacctmgr -i add account "$account" cluster="$CLUSTER" \
            description="$account" organization=ledgertest >/dev/null
done
for account_users in atlas:alice,carol,root boreal:bob,carol,root; do
    account=${account_users%%:*} users=()
    IFS=, read -ra names <<<"${account_users#*:}"
    for user in "${names[@]}"; do
        grep -qx "$account|$user" <<<"$ASSOC" || users+=("$user")
    done
    if ((${#users[@]})); then
        sacctmgr -i add user "$(IFS=,; echo "${users[*]}")" account="$account" \
            cluster="$CLUSTER" >/dev/null
    fi
done
phase "cluster, accounts, users"

# --- slurmctld ------------------------------------------------------------------------------
restart_if_changed /run/slurm/slurmctld.pid slurm.conf gres.conf
if ! alive /run/slurm/slurmctld.pid; then
    /usr/sbin/slurmctld </dev/null >>"$LOGDIR/slurmctld.stdout" 2>&1
fi
wait_for 60 "slurmctld" bash -c 'scontrol ping | grep -q "is UP"'
phase "slurmctld"

# --- slurmd ---------------------------------------------------------------------------------
restart_if_changed /run/slurm/slurmd.pid slurm.conf gres.conf
started_at=""
if ! alive /run/slurm/slurmd.pid; then
    started_at=$(date +%Y-%m-%dT%H:%M:%S)
    /usr/sbin/slurmd -N "$NODE" </dev/null >>"$LOGDIR/slurmd.stdout" 2>&1
fi
# Ready: the node is idle (not `idle*`), and registered by the slurmd started here (slurmctld
# restores the node's old state from its state file before slurmd registers).
deadline=$((SECONDS + 60))
while true; do
    state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || true)
    registered=$(scontrol show node "$NODE" 2>/dev/null |
        sed -n 's/.*SlurmdStartTime=\([^ ]*\).*/\1/p' || true)
    case "$state" in
    idle | mixed | allocated)
        [[ -z $started_at || ! $registered < $started_at ]] && break
        ;;
    *drain* | *inval*)
        scontrol update NodeName="$NODE" State=RESUME 2>/dev/null || true
        ;;
    esac
    ((SECONDS < deadline)) || die "node $NODE is '$state', not idle, after 60s (see $LOGDIR)"
    sleep 0.2
done
phase "slurmd (node $state)"

printf 'slurm start: %-32s %s s\n' total "$(elapsed "$T0")"
