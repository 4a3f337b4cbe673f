"""The Dagster instance of a home: `<home>/dagster`, read by `make ui` and written by the CLI.

`gpuledger build`, `close`, `reopen` and `demo` record their runs there, so the UI over the
home shows their run history, materializations and check results. An explicit $DAGSTER_HOME
wins, for the CLI and the UI alike. A folder without settings gets orchestration/dagster.yaml
(no telemetry, no pop-up), put in place atomically: two processes may create it at once.

The storage is Dagster's default SQLite one (runs.db, an event log file per run plus
index.db, schedules.db; WAL journals), which the UI and its daemon open with Dagster's own
classes. The CLI writes the same files through `HomeSqliteStorage`, because Dagster's SQLite
event log opens a new engine and commits with a full sync for every event, and a build emits
some 1,500 (a materialization or check per dbt node): that alone added about 13 s to a build
here. Its event log keeps one engine per file for the run and commits with
`synchronous=NORMAL` (in WAL mode: durable when the process dies, only the last commits can
be lost to a power cut, and never a corrupt file), which writes the same events in about 4 s.
Each write is still one SQLite transaction that waits for the file's lock (busy timeout 30 s),
so a CLI close and the UI's daemon, or two CLI processes, can write one instance at once.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dagster import DagsterInstance
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log import SqliteEventLogStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage
from dagster._serdes import ConfigurableClassData
from sqlalchemy import Connection, Engine, create_engine, event

SETTINGS = Path(__file__).with_name("dagster.yaml")
DEFAULT_STORAGE = (DagsterSqliteStorage.__module__, DagsterSqliteStorage.__name__)


def _synchronous_normal(connection: sqlite3.Connection, _record: object) -> None:
    connection.execute("pragma synchronous=NORMAL")


class HomeEventLogStorage(SqliteEventLogStorage):
    """Dagster's SQLite event log, writing each shard (a run's file, index.db) through one
    engine kept until the instance is disposed, with synchronous=NORMAL."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        self._engines: dict[str, Engine] = {}
        super().__init__(base_dir, inst_data)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engines.get(shard)
            if engine is None:
                engine = create_engine(
                    self.conn_string_for_shard(shard),
                    connect_args={
                        "timeout": SQLITE_BUSY_TIMEOUT_SECONDS,
                        "check_same_thread": False,
                    },
                )
                event.listen(engine, "connect", _synchronous_normal)
                if shard not in self._initialized_dbs:
                    self._initdb(engine)
                    self._initialized_dbs.add(shard)
                self._engines[shard] = engine
            with engine.connect() as conn, conn.begin():
                yield conn

    def dispose(self) -> None:
        super().dispose()
        with self._db_lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()


class HomeSqliteStorage(DagsterSqliteStorage):
    """Dagster's default SQLite storage of a folder, its event log a HomeEventLogStorage."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        super().__init__(base_dir, inst_data)
        self._event_log_storage.dispose()
        self._event_log_storage = HomeEventLogStorage(os.path.join(base_dir, "history", "runs"))

    @classmethod
    def from_config_value(  # ty: ignore[invalid-method-override]
        cls, inst_data: ConfigurableClassData, config_value: dict
    ) -> HomeSqliteStorage:
        return cls.from_local(inst_data=inst_data, **config_value)


def dagster_home(home: Path) -> Path:
    """$DAGSTER_HOME, else `<home>/dagster`; created with its settings when missing."""
    folder = Path(os.environ.get("DAGSTER_HOME") or home / "dagster").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    settings = folder / "dagster.yaml"
    if not settings.exists():
        staged = folder / f".dagster-{uuid.uuid4().hex[:12]}.yaml"
        shutil.copyfile(SETTINGS, staged)
        os.replace(staged, settings)
    return folder


def home_instance(home: Path) -> DagsterInstance:
    """The instance the UI over `home` reads; its SQLite storage (the default) written by
    HomeSqliteStorage, any other storage its settings name as they name it. Opened under a
    lock of the folder's: opening a new folder's storage creates its tables, and two
    processes that create them at once fail ("table runs already exists")."""
    folder = dagster_home(home)
    ref = InstanceRef.from_dir(str(folder))
    data = ref.storage_data
    if data is not None and (data.module_name, data.class_name) == DEFAULT_STORAGE:
        home_storage = (HomeSqliteStorage.__module__, HomeSqliteStorage.__name__)
        ref = ref._replace(storage_data=ConfigurableClassData(*home_storage, data.config_yaml))
    with (folder / ".instance.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return DagsterInstance.from_ref(ref)
