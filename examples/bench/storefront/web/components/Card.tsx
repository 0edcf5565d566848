import { theme } from "../theme";

export const Card = ({ children }: { children: React.ReactNode }) => (
  <div style={{ padding: theme.space.md, color: theme.color.text }}>{children}</div>
);
