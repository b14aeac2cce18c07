import { render } from "preact";
import { DashboardApp } from "./app.js";
import "../styles.css";

render(<DashboardApp />, document.getElementById("app")!);
