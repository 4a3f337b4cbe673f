"""serving/marts: the served copy of the marts that BI tools and `gpuledger report` read.

It is not a step of its own: the steps that change the marts publish it (the dbt build step
after a successful build, published_period after a close), each under the home lock it already
holds, and record a materialization of serving/marts with what they served. So a blocked close
still serves the provisional marts its build produced, and the UI shows the copy's lineage
(every mart and the published ledger) and the build or close each version came from.
"""

from dagster import AssetKey, AssetMaterialization, AssetsDefinition, AssetSpec, MetadataValue

from gpuledger.core.serving import Served

SERVED_MARTS = AssetKey(["serving", "marts"])
PUBLISHED_PERIOD = AssetKey(["published_period"])


def served_marts_spec(warehouse: AssetsDefinition) -> AssetSpec:
    """The served copy, downstream of every dbt mart and of the published ledger."""
    marts = sorted(key for key in warehouse.keys if key.path[0] == "marts")
    return AssetSpec(
        SERVED_MARTS,
        deps=[*marts, PUBLISHED_PERIOD],
        group_name="serving",
        kinds={"duckdb", "parquet"},
        description=(
            "The marts as readers see them: <home>/serving/marts.duckdb (swapped atomically "
            "after each build and close) and <home>/serving/parquet/<mart>.parquet. Published "
            "by the dbt build step and by published_period; never opened by the pipeline."
        ),
    )


def served_materialization(served: Served) -> AssetMaterialization:
    return AssetMaterialization(
        asset_key=SERVED_MARTS,
        metadata={
            "path": MetadataValue.path(served.path),
            "served_at": served.served_at,
            "dbt_invocation_id": served.dbt_invocation_id or "",
            "closes": MetadataValue.json(served.closes),
            "row_counts": MetadataValue.json(served.row_counts),
            # what the serve took from the copy before it (the rest it copied again)
            "kept": MetadataValue.json(served.kept),
        },
    )
