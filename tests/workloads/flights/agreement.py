"""Statements every engine must answer alike over the flight data: row counts, cancellations,
exact sums, the weather join on (origin, time_hour), medians and the extremes of the floats.

Each is written once, in SQL all three engines parse, over the schema ``nycflights13``.
"""

from typing import Final

STATEMENTS: Final = {
    "row counts": """
        SELECT
            (SELECT count(*) FROM nycflights13.flights) AS flights,
            (SELECT count(*) FROM nycflights13.weather) AS weather,
            (SELECT count(*) FROM nycflights13.airports) AS airports,
            (SELECT count(*) FROM nycflights13.airlines) AS airlines,
            (SELECT count(*) FROM nycflights13.planes) AS planes""",
    "by origin": """
        SELECT origin, count(*) AS flights, count(dep_time) AS departed,
            sum(CASE WHEN dep_time IS NULL THEN 1 ELSE 0 END) AS cancelled,
            sum(CASE WHEN dep_delay > 15 THEN 1 ELSE 0 END) AS delayed_over_15,
            sum(dep_delay) AS dep_delay, sum(arr_delay) AS arr_delay,
            min(time_hour) AS first_hour, max(time_hour) AS last_hour,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY dep_delay) AS median_dep_delay
        FROM nycflights13.flights GROUP BY origin ORDER BY origin""",
    "weather join": """
        SELECT f.origin, count(*) AS flights, count(w.temp) AS with_temperature,
            sum(w.temp) AS temp, sum(w.precip) AS precip, max(w.pressure) AS pressure
        FROM nycflights13.flights AS f
        JOIN nycflights13.weather AS w ON w.origin = f.origin AND w.time_hour = f.time_hour
        GROUP BY f.origin ORDER BY f.origin""",
    "weather": """
        SELECT origin, sum(temp) AS temp, sum(humid) AS humid, sum(visib) AS visib,
            min(wind_speed) AS least_wind, max(wind_speed) AS most_wind,
            count(wind_gust) AS gusts, count(DISTINCT wind_speed) AS wind_speeds
        FROM nycflights13.weather GROUP BY origin ORDER BY origin""",
    "dimensions": """
        SELECT
            (SELECT count(DISTINCT dest) FROM nycflights13.flights) AS destinations,
            (SELECT count(DISTINCT carrier) FROM nycflights13.flights) AS carriers,
            (SELECT min(lat) FROM nycflights13.airports) AS least_latitude,
            (SELECT max(lon) FROM nycflights13.airports) AS most_longitude,
            (SELECT count(tzone) FROM nycflights13.airports) AS with_zone,
            (SELECT sum(seats) FROM nycflights13.planes) AS seats,
            (SELECT count(speed) FROM nycflights13.planes) AS with_speed""",
}
"""Each statement by what it checks."""
